import { ToolshedError } from '../core/errors/toolshed-error.js';
/**
 * Turns texts into vectors for semantic tool search ({@link OpenAIEmbeddings} is one; any model
 * can stand behind it).
 *
 * @example
 * ```ts
 * const local: EmbeddingProvider = {
 *   id: 'my-model',
 *   embed: async (texts) => texts.map((text) => myModel.encode(text)),
 * };
 * ```
 */
export interface EmbeddingProvider {
  /** Names the model; cached tool vectors are kept per provider id. */
  readonly id: string;
  /**
   * One vector per text, in order. Rejects with an {@link EmbeddingError} (or any error) when the
   * vectors cannot be had; callers fall back to lexical search.
   */
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/**
 * Why vectors could not be had from an embeddings endpoint; the message names the endpoint and what
 * it did.
 *
 * @example
 * ```ts
 * try {
 *   await embeddings.embed(['send an email']);
 * } catch (error) {
 *   if (error instanceof EmbeddingError) console.warn(error.message); // 'The embeddings endpoint ... answered 503: ...'
 * }
 * ```
 */
export class EmbeddingError extends ToolshedError<'EMBEDDING_FAILED'> {
  override readonly name = 'EmbeddingError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('EMBEDDING_FAILED', message, options);
  }
}

/**
 * Options of {@link OpenAIEmbeddings}.
 *
 * @example
 * ```ts
 * const options: OpenAIEmbeddingsOptions = { baseURL: 'https://api.openai.com/v1', model: 'text-embedding-3-small', apiKey, batchSize: 256 };
 * ```
 */
export interface OpenAIEmbeddingsOptions {
  /** Base URL of the API, such as `http://127.0.0.1:11434/v1`; requests go to `{baseURL}/embeddings`. */
  baseURL: string;
  /** The model to ask for, sent as `model`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** At most this many texts a request (default 64). */
  batchSize?: number;
  /** Each request is abandoned after this long (default 10 000 ms). */
  timeoutMs?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

const DEFAULT_BATCH_SIZE = 64;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * An {@link EmbeddingProvider} for any OpenAI-compatible embeddings endpoint (OpenAI, Azure OpenAI,
 * Ollama, vLLM, LM Studio, text-embeddings-inference...): `POST {baseURL}/embeddings` with
 * `{model, input: [texts]}`, answered by `{data: [{embedding: number[], index}]}`. Texts go in
 * batches of `batchSize`; each request has its own timeout. A failed request rejects with an
 * {@link EmbeddingError} saying what the endpoint did (status and body, timeout, malformed answer).
 *
 * @example
 * ```ts
 * const embeddings = new OpenAIEmbeddings({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' });
 * const [vector] = await embeddings.embed(['send an email']);
 * ```
 */
export class OpenAIEmbeddings implements EmbeddingProvider {
  readonly id: string;
  readonly #url: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #batchSize: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAIEmbeddingsOptions) {
    this.#url = `${options.baseURL.replace(/\/+$/, '')}/embeddings`;
    this.#model = options.model;
    this.#apiKey = options.apiKey;
    this.#batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? fetch;
    this.id = `${this.#url}#${this.#model}`;
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      vectors.push(...(await this.#request(texts.slice(start, start + this.#batchSize), options.signal)));
    }
    return vectors;
  }

  async #request(input: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    let text: string;
    let status: number;
    try {
      const response = await this.#fetch(this.#url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.#model, input }),
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) {
        throw new EmbeddingError(`The embeddings endpoint ${this.#url} did not answer within ${this.#timeoutMs} ms.`);
      }
      const reason =
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new EmbeddingError(`The embeddings endpoint ${this.#url} could not be reached: ${reason}`);
    }
    if (status !== 200) {
      throw new EmbeddingError(`The embeddings endpoint ${this.#url} answered ${status}: ${excerpt(text)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new EmbeddingError(`The embeddings endpoint ${this.#url} answered with malformed JSON: ${excerpt(text)}`);
    }
    return readVectors(body, input.length, this.#url);
  }
}

/** The vectors of an embeddings answer, in input order; throws when it is not one vector per input. */
function readVectors(body: unknown, count: number, url: string): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) {
    const got = Array.isArray(data) ? `${data.length} embeddings` : 'no `data` array';
    throw new EmbeddingError(`The embeddings endpoint ${url} answered with ${got} for ${count} inputs.`);
  }
  const vectors: number[][] = new Array(count);
  data.forEach((item: { embedding?: unknown; index?: unknown } | null, position) => {
    const embedding = item?.embedding;
    const index = typeof item?.index === 'number' ? item.index : position;
    if (
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      !embedding.every((value) => typeof value === 'number' && Number.isFinite(value)) ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= count ||
      vectors[index] !== undefined
    ) {
      throw new EmbeddingError(
        `The embeddings endpoint ${url} answered with an invalid embedding at data[${position}]: expected {embedding: number[], index}.`,
      );
    }
    vectors[index] = embedding as number[];
  });
  return vectors;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
