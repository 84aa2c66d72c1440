/**
 * Weft: a radix-tree router, an onion middleware chain, a typed context and `serve()` for
 * HTTP/1.1 and HTTP/2, on Web-standard `Request` and `Response`.
 *
 * @example A small app, end to end
 * ```ts
 * import { chain, get, router, type Middleware } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const poweredBy: Middleware = async (ctx, next) => {
 *   ctx.setHeader("x-powered-by", "weft");
 *   return await next();
 * };
 * const app = chain([poweredBy], router([
 *   get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
 * ]));
 *
 * const res = await app.fetch(new Request("http://localhost/hello/world"));
 * assert.deepEqual(await res.json(), { hello: "world" });
 * assert.equal(res.headers.get("x-powered-by"), "weft");
 * ```
 *
 * @module
 */
export { chain } from "./lib/chain.ts";
export {
  Context,
  DEFAULT_BODY_LIMIT,
  type JsonInit,
  type RedirectStatus,
  type ResponseState,
} from "./lib/context.ts";
export { html, jsonText, response, text, type TypedBody } from "./lib/response.ts";
export { serve, type ServeOptions, type Server } from "./lib/serve.ts";
export type {
  App,
  AppHooks,
  Handler,
  Middleware,
  Next,
  Params,
  Variables,
  VariablesOf,
} from "./lib/types.ts";
export type { ConnInfo, ServerAddr } from "./lib/server/types.ts";
export { HttpError, type HttpErrorOptions } from "./lib/http/http_error.ts";
export { problem, type ProblemDetails } from "./lib/http/problem.ts";
export { STATUS_TEXT } from "./lib/http/status.ts";
export {
  del,
  get,
  type Group,
  group,
  head,
  type JoinedPattern,
  options,
  patch,
  post,
  type PrefixedRoutes,
  put,
  type Route,
  route,
  type RouteConstructor,
  router,
  type RouterOptions,
  type RouteShape,
  type RoutesOf,
} from "./lib/router/router.ts";
export type { ParamNames, PathParams, SegmentName } from "./lib/router/pattern.ts";
export { logger, type LoggerOptions, type LogRecord } from "./lib/middleware/logger.ts";
export { cors, type CorsOptions, type CorsOrigin } from "./lib/middleware/cors.ts";
export {
  auth,
  type AuthOptions,
  type AuthVariables,
  BearerError,
  bearerTokens,
  type BearerValidator,
  type ValidatedUser,
} from "./lib/middleware/auth.ts";
export { bodyLimit, type BodyLimitOptions } from "./lib/middleware/body_limit.ts";
export {
  type DecodeResult,
  type Infer,
  json,
  type JsonError,
  jsonErrorResponse,
  type JsonValue,
  schema,
} from "./lib/json/mod.ts";
export {
  acceptKey,
  websocket,
  type WebSocketConnection,
  type WebSocketFrame,
  type WebSocketHandlers,
  type WebSocketMiddleware,
  type WebSocketOptions,
  type WebSocketState,
} from "./lib/middleware/websocket.ts";
export {
  type StaticCacheOptions,
  staticFiles,
  type StaticFilesOptions,
} from "./lib/middleware/static_files.ts";
export {
  validate,
  type ValidatedParts,
  type ValidateSchemas,
  type Validator,
} from "./lib/middleware/validate.ts";
export {
  type CookieOptions,
  deleteCookie,
  findCookie,
  getCookie,
  getCookies,
  MAX_COOKIE_SIZE,
  parseCookies,
  serializeCookie,
  setCookie,
} from "./lib/security/cookie.ts";
export {
  getSignedCookie,
  MIN_SECRET_LENGTH,
  type Secrets,
  setSignedCookie,
} from "./lib/security/signed_cookie.ts";
export {
  getSession,
  MemoryStore,
  Session,
  session,
  SESSION_KEY,
  type SessionOptions,
  type SessionStore,
  SessionTooLargeError,
  type SessionVariables,
} from "./lib/security/session.ts";
export {
  basicAuth,
  type BasicAuthOptions,
  basicUsers,
  type BasicVerifier,
} from "./lib/security/basic_auth.ts";
export {
  csrf,
  CSRF_TOKEN_KEY,
  type CsrfOptions,
  csrfToken,
  type CsrfVariables,
} from "./lib/security/csrf.ts";
export {
  CSP_NONCE_KEY,
  type CspDirectives,
  cspNonce,
  type CspVariables,
  NONCE,
  secureHeaders,
  type SecureHeadersOptions,
} from "./lib/security/secure_headers.ts";
export {
  getRequestId,
  REQUEST_ID_KEY,
  requestId,
  type RequestIdOptions,
  type RequestIdVariables,
} from "./lib/security/request_id.ts";
export {
  sse,
  SseClosed,
  type SseEvent,
  type SseOptions,
  type SseOverflow,
  type SseStream,
} from "./lib/realtime/sse.ts";
export {
  type AttachOptions,
  broadcastChannelTransport,
  createTopics,
  inProcessTransport,
  type TopicHandler,
  type Topics,
  type TopicsOptions,
  TopicsUnavailableError,
  type TopicTransport,
  type Unsubscribe,
} from "./lib/realtime/topics.ts";
export { timeout } from "./lib/middleware/timeout.ts";
