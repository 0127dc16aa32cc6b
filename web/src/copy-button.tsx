import { useEffect, useState } from 'react';

/**
 * A button that copies `text` to the clipboard and says so for two seconds (falling back to a hidden
 * text area where the Clipboard API is unavailable).
 *
 * @example
 * ```tsx
 * <CopyButton text={url} label="Copy MCP URL" />
 * ```
 */
export function CopyButton(props: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    setState((await copyText(props.text)) ? 'copied' : 'failed');
  };
  return (
    <button type="button" className="button button-small" onClick={copy} aria-label={props.label}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    try {
      return document.execCommand('copy');
    } finally {
      area.remove();
    }
  }
}
