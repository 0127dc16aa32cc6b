import { errorResponse, type HttpRoute } from './http-route.js';

/** A web-standard HTTP app: one function from `Request` to `Response`. */
export interface HttpApp {
  fetch(request: Request): Promise<Response>;
}

/**
 * Compose routes into an app: the first route that answers wins; a request no route answers gets 404
 * `NOT_FOUND`, and a route that throws gets 500 `INTERNAL` (the error goes to `onError`, never to the
 * client).
 *
 * @example
 * ```ts
 * const app = createHttpApp([createHealthRoute(() => registry.size), mcpRoutes.route]);
 * const response = await app.fetch(new Request('http://127.0.0.1:4319/health'));
 * ```
 */
export function createHttpApp(routes: readonly HttpRoute[], onError: (error: unknown) => void = () => {}): HttpApp {
  return {
    async fetch(request) {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return errorResponse(404, 'NOT_FOUND', 'Not found.');
      }
      try {
        for (const route of routes) {
          const response = await route(request, url);
          if (response !== undefined) return response;
        }
      } catch (error) {
        onError(error);
        return errorResponse(500, 'INTERNAL', 'Internal error while handling the request.');
      }
      return errorResponse(404, 'NOT_FOUND', `No route for ${request.method} ${url.pathname}.`);
    },
  };
}
