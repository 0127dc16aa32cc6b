import { type MouseEvent, type ReactNode, useEffect, useState } from 'react';

const NAVIGATE_EVENT = 'toolshed:navigate';

/**
 * Go to a path of the app without reloading the page.
 *
 * @example
 * ```ts
 * navigate('/tools/calculator');
 * ```
 */
export function navigate(to: string): void {
  if (to === `${location.pathname}${location.search}`) return;
  history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/**
 * The current path (with its query), updated on links and on the browser's back and forward.
 *
 * @example
 * ```tsx
 * const path = usePath();
 * ```
 */
export function usePath(): string {
  const [path, setPath] = useState(() => `${location.pathname}${location.search}`);
  useEffect(() => {
    const update = () => setPath(`${location.pathname}${location.search}`);
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE_EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE_EVENT, update);
    };
  }, []);
  return path;
}

/**
 * A link inside the app: a real `<a href>` (middle click, copy link) that navigates without a reload.
 *
 * @example
 * ```tsx
 * <Link to="/agents">Agents</Link>
 * ```
 */
export function Link(props: { to: string; children: ReactNode; className?: string; current?: boolean }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={props.to} onClick={onClick} className={props.className} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
