/**
 * The types of `weft/client`: what a call takes and what it answers, read from an app's type.
 * A route carries (type only) its method, full pattern and middleware list; the `describe()` and
 * `validate()` in that list give the params, query, headers and body a call must send, and the
 * responses it may get.
 *
 * @module
 */
import type { Infer, StandardSchemaV1 } from "../json/standard_schema.ts";
import type { ParamNames } from "../router/pattern.ts";
import type { RouteShape } from "../router/router.ts";

/**
 * The routes of an app, as one union of {@linkcode RouteShape}: what `router()` (and a `chain()`
 * around it) carry in their type.
 *
 * @example
 * ```ts
 * import { get, router } from "../../mod.ts";
 * import type { AppRoutes } from "./mod.ts";
 *
 * const app = router([get("/notes/:id", (ctx) => ctx.text(ctx.params.id))]);
 * const pattern: AppRoutes<typeof app>["pattern"] = "/notes/:id";
 * ```
 */
export type AppRoutes<A> = A extends { readonly "~routes"?: infer R } ? Extract<R, RouteShape>
  : never;

/** The route of an app for a method and a pattern. */
export type RouteAt<A, M extends string, P extends string> = Extract<
  AppRoutes<A>,
  { readonly method: M; readonly pattern: P }
>;

/** The patterns of an app's routes for a method. */
export type PathsOf<A, M extends string> = Extract<AppRoutes<A>, { readonly method: M }>["pattern"];

/** What one middleware declares (type only): `validate()`'s schemas, `describe()`'s description. */
export type DeclarationOf<H> =
  & (H extends { readonly "~validates"?: infer S } ? unknown extends S ? unknown : NonNullable<S>
    : unknown)
  & (H extends { readonly "~describes"?: infer D } ? unknown extends D ? unknown : NonNullable<D>
    : unknown);

/** `A` with the fields of `B` in place of its own. */
export type Override<A, B> = Omit<A, keyof B> & B;

/**
 * The request parts that every `validate()` and `describe()` of a route checks at run time (a
 * group's `describe({ body })` decodes the body as the route's own does).
 */
export type CheckedPart = "params" | "query" | "headers" | "body";

/**
 * Two schemas of one part, both checked (a group's and the route's): a value must pass both, so
 * its type is both types (type only: nothing of this kind exists at run time).
 */
export type BothChecks<A, B> = A extends StandardSchemaV1
  ? B extends StandardSchemaV1 ? StandardSchemaV1<unknown, Infer<A> & Infer<B>> : A
  : B;

/**
 * `A` with the fields of `B` in place of its own, but for the checked parts that both declare:
 * those add up ({@linkcode BothChecks}), as both checks run.
 */
export type Combine<A, B> =
  & Omit<A, keyof B>
  & Omit<B, Extract<CheckedPart, keyof A & keyof B>>
  & { readonly [K in Extract<CheckedPart, keyof A & keyof B>]: BothChecks<A[K], B[K]> };

/**
 * What a route's middleware list declares, as `openapi()` reads it: `responses`, `security`…
 * field by field, the innermost winning; `params`, `query`, `headers` and `body` adding up,
 * since every declaration of them checks the request.
 */
export type Declared<L extends readonly unknown[], Acc = unknown> = L extends
  readonly [infer H, ...infer Rest] ? Declared<Rest, Combine<Acc, DeclarationOf<H>>>
  : Acc;

/** The value type of a declared part's schema (`undefined` when not declared). */
export type Part<D, K extends string> = D extends
  { readonly [key in K]: infer S extends StandardSchemaV1 } ? Infer<S>
  : undefined;

/** A value of a query field or a header: written as text (arrays: one key each, or a list). */
export type TextValue = string | number | boolean;

/**
 * The fields of a declared query or headers as a call takes them: text carries no `null`, so a
 * field that may be left out may be `null` (the client leaves it out, as it leaves `undefined`
 * out) and a required one may not (left out, it would be refused as missing). An array field may
 * always be left out: the server reads no value as an empty array.
 */
export type TextFields<V> =
  & {
    [K in keyof V as K extends ArrayKeys<V> ? never : K]: undefined extends V[K] ? V[K]
      : Exclude<V[K], null>;
  }
  & { [K in keyof V as K extends ArrayKeys<V> ? K : never]?: V[K] };

/** The keys of `V` whose values are arrays. */
export type ArrayKeys<V> = {
  [K in keyof V]-?: NonNullable<V[K]> extends readonly unknown[] ? K : never;
}[keyof V];

/** The `params` of a call: the pattern's names, typed by the declared params schema. */
export type ParamsInput<P extends string, D> = [ParamNames<P>] extends [never]
  ? { params?: undefined }
  : {
    /** The pattern's params, typed by the route's params schema where it declares one. */
    params: ParamsOf<ParamNames<P>, Part<D, "params">>;
  };

/** Each param name with the type its schema gives it, or any text. */
export type ParamsOf<N extends string, V> = {
  [K in N]: V extends object ? K extends keyof V ? V[K] : TextValue : TextValue;
};

/** The `query` of a call: typed by the declared query schema, or any fields. */
export type QueryInput<D> = Part<D, "query"> extends infer Q ? undefined extends Q ? {
      /** Query fields (the route declares none: anything goes; `null` is left out). */
      query?: { readonly [key: string]: TextValue | readonly TextValue[] | null | undefined };
    }
  : object extends TextFields<Q> ? {
      /** The query, typed by the route's query schema. */
      query?: TextFields<Q>;
    }
  : {
    /** The query, typed by the route's query schema. */
    query: TextFields<Q>;
  }
  : never;

/** The `headers` of a call: typed by the declared headers schema, or any. */
export type HeadersInput<D> = Part<D, "headers"> extends infer H ? undefined extends H ? {
      /** Headers to send (the route declares none; an array is a list, `null` is left out). */
      headers?: { readonly [name: string]: TextValue | readonly TextValue[] | null | undefined };
    }
  : object extends TextFields<H> ? {
      /** Headers, typed by the route's headers schema. */
      headers?: TextFields<H>;
    }
  : {
    /** Headers, typed by the route's headers schema. */
    headers: TextFields<H>;
  }
  : never;

/** The body of a call: `json` typed by the declared body schema, or any `json` or `body`. */
export type BodyInput<D> = D extends { readonly body: infer B extends StandardSchemaV1 } ? {
    /** The JSON body, typed by the route's body schema; sent as `application/json`. */
    json: Infer<B>;
    body?: undefined;
  }
  : {
    /** A JSON body (the route declares none); sent as `application/json`. */
    json?: unknown;
    /** A body sent as it is (text, bytes, a form, a stream). */
    body?: BodyInit | null;
  };

/** What a call to the route `T` takes. */
export type ClientInput<T extends RouteShape> = Declared<T["middleware"]> extends infer D ?
    & ParamsInput<T["pattern"], D>
    & QueryInput<D>
    & HeadersInput<D>
    & BodyInput<D>
    & {
      /** Anything else of the request (`signal`, more headers, `credentials`…). */
      init?: RequestInit;
    }
  : never;

/** The arguments after the path: the input, optional when nothing in it is required. */
export type ClientArgs<T extends RouteShape> = ClientInput<T> extends infer I
  ? object extends I ? [input?: I] : [input: I]
  : never;

/** The arguments of `head()`: a GET route's input, without a body (a HEAD request has none). */
export type HeadArgs<T extends RouteShape> = Omit<ClientInput<T>, "json" | "body"> extends infer I
  ? object extends I ? [input?: I] : [input: I]
  : never;

/**
 * The arguments of `options()`: the pattern's params, and any query, headers and `init`. Every
 * path of the app answers OPTIONS (its `Allow`, or a CORS preflight), whatever its methods
 * declare.
 */
export type OptionsArgs<P extends string> =
  & ParamsInput<P, unknown>
  & QueryInput<unknown>
  & HeadersInput<unknown>
  & {
    /** Anything else of the request (`signal`, more headers, `credentials`…). */
    init?: RequestInit;
  } extends infer I ? object extends I ? [input?: I] : [input: I]
  : never;

/**
 * What `head()` and `options()` resolve to: an answer without a body (read its headers from
 * `response`), or problem details for an error status (without a body, its title is the status's
 * phrase).
 */
export type BodilessResponse = {
  /** True for a 2xx status. */
  ok: boolean;
  /** The status. */
  status: number;
  /** An answer without a body has no data. */
  data: undefined;
  /** Never set on an answer. */
  problem?: undefined;
  /** The response. */
  response: Response;
} | ProblemAnswer;

/**
 * RFC 9457 problem details: what the app answers as `application/problem+json` (a 400 of
 * `validate()` or `describe()` with its `errors`, 401, 404, 405, 413, 415, 500…), or what the
 * client writes itself when no answer could be read (status 0 for a request that failed or could
 * not be built).
 */
export interface ProblemDetails {
  /** A URI naming the problem type (`"about:blank"` for the status's own meaning). */
  type: string;
  /** The status's reason phrase, or a short summary. */
  title: string;
  /** The HTTP status (0: the request failed, or could not be built, before any answer). */
  status: number;
  /** What went wrong with this request. */
  detail?: string;
  /** A 400 of `validate()`/`describe()`: every failing field. */
  errors?: { in: string; path: string; message: string }[];
  /** Other members (a JSON decode failure's `kind`, `path`, `expected`…). */
  [member: string]: unknown;
}

/** An answer the client could not read as a declared response: problem details. */
export interface ProblemAnswer {
  /** Always false. */
  ok: false;
  /** The HTTP status, or 0 when the request failed before any answer. */
  status: number;
  /** Never set on a problem. */
  data?: undefined;
  /** The problem. */
  problem: ProblemDetails;
  /** The response, when there was one (its body has been read). */
  response?: Response;
}

/** The body type of a declared response: its schema's, or `undefined`. */
export type Data<X> = X extends StandardSchemaV1 ? Infer<X>
  : X extends { readonly schema: infer S extends StandardSchemaV1 } ? Infer<S>
  : undefined;

/** Whether a status is 2xx, as a literal type. */
export type Success<S> = `${S & number}` extends `2${string}` ? true : false;

/**
 * A key of `describe({ responses })` as a status: `201`, or `"201"` (a key written as a string
 * names the same status).
 */
export type StatusOf<K> = K extends number ? K : K extends `${infer N extends number}` ? N : never;

/** One answer per declared status, `data` typed by its schema. */
export type DeclaredAnswers<R> = {
  [K in keyof R]: [StatusOf<K>] extends [never] ? never : {
    /** True for a 2xx status. */
    ok: Success<StatusOf<K>>;
    /** The status. */
    status: StatusOf<K>;
    /** The JSON body, typed by the status's schema (`undefined` when it declares none). */
    data: Data<R[K]>;
    /** Never set on a declared answer. */
    problem?: undefined;
    /** The response (its JSON body has been read). */
    response: Response;
  };
}[keyof R];

/** An answer of a route that declares no responses: any status, an untyped body. */
export interface UndeclaredAnswer {
  /** True for a 2xx status. */
  ok: boolean;
  /** The status. */
  status: number;
  /** The JSON body; `undefined` for a body that is not JSON (read it from `response`). */
  data: unknown;
  /** Never set on an answer. */
  problem?: undefined;
  /** The response. */
  response: Response;
}

/**
 * What a call to the route `T` resolves to: one member per status its `describe({ responses })`
 * declares, with `data` typed by that status's schema, or {@linkcode ProblemAnswer}. Narrow with
 * `problem` (or `ok`) and then `status`.
 */
export type ClientResponse<T extends RouteShape> = Declared<T["middleware"]> extends
  { readonly responses: infer R extends object } ? DeclaredAnswers<R> | ProblemAnswer
  : UndeclaredAnswer | ProblemAnswer;

/**
 * The typed client of an app `A`: one method per HTTP method, taking a pattern of the app's
 * routes for that method and the route's input.
 */
export interface Client<A> {
  /**
   * Sends a GET.
   *
   * @param path A pattern of the app's GET routes, such as `"/notes/:id"`.
   * @param input Params, query, headers (and `init`); required when the route needs any.
   */
  get<P extends PathsOf<A, "GET">>(
    path: P,
    ...input: ClientArgs<RouteAt<A, "GET", P>>
  ): Promise<ClientResponse<RouteAt<A, "GET", P>>>;
  /**
   * Sends a POST.
   *
   * @param path A pattern of the app's POST routes.
   * @param input Params, query, headers, the `json` body (and `init`).
   */
  post<P extends PathsOf<A, "POST">>(
    path: P,
    ...input: ClientArgs<RouteAt<A, "POST", P>>
  ): Promise<ClientResponse<RouteAt<A, "POST", P>>>;
  /**
   * Sends a PUT.
   *
   * @param path A pattern of the app's PUT routes.
   * @param input Params, query, headers, the `json` body (and `init`).
   */
  put<P extends PathsOf<A, "PUT">>(
    path: P,
    ...input: ClientArgs<RouteAt<A, "PUT", P>>
  ): Promise<ClientResponse<RouteAt<A, "PUT", P>>>;
  /**
   * Sends a PATCH.
   *
   * @param path A pattern of the app's PATCH routes.
   * @param input Params, query, headers, the `json` body (and `init`).
   */
  patch<P extends PathsOf<A, "PATCH">>(
    path: P,
    ...input: ClientArgs<RouteAt<A, "PATCH", P>>
  ): Promise<ClientResponse<RouteAt<A, "PATCH", P>>>;
  /**
   * Sends a DELETE.
   *
   * @param path A pattern of the app's DELETE routes.
   * @param input Params, query, headers (and `init`).
   */
  delete<P extends PathsOf<A, "DELETE">>(
    path: P,
    ...input: ClientArgs<RouteAt<A, "DELETE", P>>
  ): Promise<ClientResponse<RouteAt<A, "DELETE", P>>>;
  /**
   * Sends a HEAD: the status and headers a GET would get (its `content-length`, `etag`…),
   * without the body.
   *
   * @param path A pattern of the app's GET (or HEAD) routes.
   * @param input Params, query, headers (and `init`), as the GET route takes them.
   */
  head<P extends PathsOf<A, "GET" | "HEAD">>(
    path: P,
    ...input: HeadArgs<RouteAt<A, "GET" | "HEAD", P>>
  ): Promise<BodilessResponse>;
  /**
   * Sends an OPTIONS: the methods the path allows (`allow`), or with `origin` and
   * `access-control-request-method` headers a CORS preflight.
   *
   * @param path A pattern of any of the app's routes.
   * @param input Params, query, headers (and `init`).
   */
  options<P extends PathsOf<A, string>>(
    path: P,
    ...input: OptionsArgs<P>
  ): Promise<BodilessResponse>;
}
