import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { EmailRecord } from './email-record.js';
import type { EmailStore } from './email-store.js';

/** Options of {@link generateEmails}. */
export interface GenerateEmailsOptions {
  /** How many emails. */
  count: number;
  /** How many inboxes (default 150). */
  inboxes?: number;
  /** The same seed gives the same corpus (default 1). */
  seed?: number;
  /** Vocabulary size (default 20 000 words). */
  vocabulary?: number;
  /** First date (default 1999-01-01); emails spread over `years` (default 3). */
  start?: Date;
  years?: number;
}

const FIRST = [
  'john',
  'jane',
  'kenneth',
  'sara',
  'mike',
  'louise',
  'vince',
  'sally',
  'jeff',
  'kim',
  'phillip',
  'tana',
  'mark',
  'susan',
  'greg',
  'lynn',
  'chris',
  'steven',
  'rick',
  'kate',
];
const LAST = [
  'arnold',
  'doe',
  'lay',
  'shackleton',
  'grigsby',
  'kitchen',
  'kaminski',
  'beck',
  'dasovich',
  'watson',
  'allen',
  'jones',
  'taylor',
  'scott',
  'whalley',
  'blair',
  'germany',
  'kean',
  'buy',
  'mann',
];
const COMMON = [
  'the',
  'to',
  'and',
  'of',
  'a',
  'in',
  'for',
  'is',
  'on',
  'that',
  'we',
  'with',
  'this',
  'be',
  'you',
  'will',
  'have',
  'are',
  'it',
  'as',
  'at',
  'please',
  'meeting',
  'gas',
  'power',
  'deal',
  'contract',
  'price',
  'market',
  'energy',
  'report',
  'schedule',
  'budget',
  'trading',
  'call',
  'agreement',
  'review',
  'week',
  'attached',
  'thanks',
];
const SYLLABLES = [
  'ka',
  'ron',
  'tel',
  'mi',
  'sor',
  'van',
  'de',
  'lin',
  'qua',
  'pex',
  'tor',
  'ben',
  'sal',
  'gri',
  'mo',
  'nex',
  'ul',
  'ra',
  'fen',
  'dov',
  'ist',
  'cap',
  'lo',
  'zen',
];

/**
 * A small fast deterministic PRNG (mulberry32): numbers in [0, 1), the same sequence for a seed.
 *
 * @example
 * ```ts
 * const next = seededRandom(42);
 * next(); // always the same first value for seed 42
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildVocabulary(size: number, rand: () => number): string[] {
  const words = new Set(COMMON);
  while (words.size < size) {
    const parts = 2 + Math.floor(rand() * 3);
    let word = '';
    for (let i = 0; i < parts; i += 1) word += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/** Cumulative Zipf weights (exponent 1.07, close to English text). */
function zipfTable(size: number): Float64Array {
  const table = new Float64Array(size);
  let sum = 0;
  for (let rank = 0; rank < size; rank += 1) {
    sum += 1 / (rank + 1) ** 1.07;
    table[rank] = sum;
  }
  for (let rank = 0; rank < size; rank += 1) table[rank] = (table[rank] ?? 0) / sum;
  return table;
}

function pick(table: Float64Array, value: number): number {
  let low = 0;
  let high = table.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((table[middle] ?? 1) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A synthetic email corpus, deterministic from `seed`: inboxes `first.last[N]@enron.example`, a Zipf
 * vocabulary (a few very common words, a long tail of rare ones), threads of replies (`Re:` with the
 * parent quoted under `-----Original Message-----`), forwarded blocks (`Fwd:`), and dates spread over
 * years (a reply always after its parent). Yields the emails in date order of generation.
 *
 * @example
 * ```ts
 * for (const email of generateEmails({ count: 1000, inboxes: 120, seed: 7 })) console.log(email.subject);
 * ```
 */
export function* generateEmails(options: GenerateEmailsOptions): Generator<EmailRecord> {
  const rand = seededRandom(options.seed ?? 1);
  const inboxCount = Math.max(1, options.inboxes ?? 150);
  const vocabulary = buildVocabulary(Math.max(COMMON.length + 1, options.vocabulary ?? 20_000), rand);
  const table = zipfTable(vocabulary.length);
  const people = Array.from({ length: inboxCount }, (_, index) => {
    const first = FIRST[index % FIRST.length];
    const last = LAST[Math.floor(index / FIRST.length) % LAST.length];
    const round = Math.floor(index / (FIRST.length * LAST.length));
    return `${first}.${last}${round === 0 ? '' : round}@enron.example`;
  });
  // Inboxes are not equally busy either.
  const peopleTable = zipfTable(people.length);
  const person = () => people[pick(peopleTable, rand())] as string;
  const words = (count: number) => Array.from({ length: count }, () => vocabulary[pick(table, rand())]).join(' ');
  const start = (options.start ?? new Date('1999-01-01T00:00:00Z')).getTime();
  const span = (options.years ?? 3) * 365 * 24 * 3600 * 1000;
  const recent: EmailRecord[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const sender = person();
    let recipient = person();
    if (recipient === sender) recipient = people[(people.indexOf(sender) + 1) % people.length] as string;
    const cc = rand() < 0.3 ? [person()] : [];
    const paragraphs = 1 + Math.floor(rand() * 4);
    let body = Array.from({ length: paragraphs }, () => `${words(8 + Math.floor(rand() * 40))}.`).join('\n\n');
    let subject = words(2 + Math.floor(rand() * 5));
    let time = start + Math.floor((index / Math.max(1, options.count)) * span + rand() * 86_400_000);
    const roll = rand();
    const parent = recent.length > 0 ? recent[Math.floor(rand() * recent.length)] : undefined;
    if (parent !== undefined && roll < 0.3) {
      subject = parent.subject.startsWith('Re: ') ? parent.subject : `Re: ${parent.subject}`;
      recipient = parent.sender;
      const quoted = parent.body
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
      body += `\n\n-----Original Message-----\nFrom: ${parent.sender}\nSent: ${parent.date}\nTo: ${parent.recipients.join('; ')}\nSubject: ${parent.subject}\n\n${quoted}`;
      time = Math.max(time, Date.parse(parent.date) + 60_000 + Math.floor(rand() * 3 * 86_400_000));
    } else if (parent !== undefined && roll < 0.38) {
      subject = `Fwd: ${parent.subject}`;
      body += `\n\n---------------------- Forwarded by ${sender} on ${parent.date} ---------------------------\n\nFrom: ${parent.sender}\nSubject: ${parent.subject}\n\n${parent.body}`;
      time = Math.max(time, Date.parse(parent.date) + 60_000);
    }
    const email: EmailRecord = {
      message_id: `<${options.seed ?? 1}.${index}.generated@enron.example>`,
      inbox: recipient,
      subject,
      sender,
      recipients: [recipient, ...cc],
      date: new Date(time).toISOString(),
      body: body.slice(0, 200_000),
    };
    recent.push(email);
    if (recent.length > 200) recent.shift();
    yield email;
  }
}

/** Write {@link generateEmails} to a JSONL file (one email a line, the `email_get` shape); returns the count. */
export async function writeGeneratedJsonl(
  path: string,
  options: GenerateEmailsOptions,
  onProgress?: (done: number) => void,
): Promise<number> {
  const out = createWriteStream(path, { encoding: 'utf8' });
  let done = 0;
  for (const email of generateEmails(options)) {
    if (!out.write(`${JSON.stringify(email)}\n`)) await once(out, 'drain');
    done += 1;
    if (done % 1000 === 0) onProgress?.(done);
  }
  out.end();
  await once(out, 'finish');
  onProgress?.(done);
  return done;
}

/** Insert {@link generateEmails} into the store in batches; returns how many rows were added. */
export async function generateIntoStore(
  emails: EmailStore,
  options: GenerateEmailsOptions & { batchSize?: number },
  onProgress?: (done: number) => void,
): Promise<number> {
  const size = options.batchSize ?? 2000;
  let batch: EmailRecord[] = [];
  let added = 0;
  let done = 0;
  for (const email of generateEmails(options)) {
    batch.push(email);
    if (batch.length >= size) {
      added += await emails.insertBatch(batch);
      done += batch.length;
      batch = [];
      onProgress?.(done);
    }
  }
  added += await emails.insertBatch(batch);
  onProgress?.(done + batch.length);
  return added;
}
