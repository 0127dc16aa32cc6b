/** Plain text for the model. */
export interface TextContent {
  type: 'text';
  text: string;
}

/** A base64-encoded image (`mimeType` such as `image/png`). */
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
}

/** Base64-encoded audio (`mimeType` such as `audio/wav`). */
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
}

/** A resource embedded in the result: its URI and either its text or its base64 `blob`. */
export interface EmbeddedResource {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text?: string; blob?: string };
}

/** A link to a resource the client may read later. */
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/**
 * One block of rich tool output, in the shapes MCP defines, passed through to clients that show them.
 *
 * @example
 * ```ts
 * const blocks: ContentBlock[] = [
 *   { type: 'text', text: 'A red pixel:' },
 *   { type: 'image', data: 'iVBORw0KGgo...', mimeType: 'image/png' },
 * ];
 * ```
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;
