/**
 * `openapi(app, info)`: an OpenAPI 3.1 document from a router's routes, their `validate()`
 * schemas and their `describe()` declarations.
 *
 * @module
 */
import type { ObjectSchema, Schema, SchemaNode, Shape } from "../json/schema.ts";
import { type JsonSchemaDocument, toJsonSchema } from "../json/to_json_schema.ts";
import { VALIDATES } from "../middleware/_validated.ts";
import type { ValidateSchemas } from "../middleware/validate.ts";
import { parsePattern } from "../router/pattern.ts";
import type { Group, Route } from "../router/router.ts";
import { SOURCE } from "../router/_table.ts";
import { STATUS_TEXT } from "../http/status.ts";
import type { App, Middleware } from "../types.ts";
import { DESCRIBES, type Description, type ResponseDescription } from "./describe.ts";

/** The `info` of the document, and where the API is served. */
export interface OpenApiInfo {
  /** The API's title. */
  title: string;
  /** The API's version (not the OpenAPI version). */
  version: string;
  /** A longer description (CommonMark). */
  description?: string;
  /** Base URLs of the API, such as `"https://api.example.com"`. */
  servers?: readonly string[];
  /**
   * Schemas to name in `components.schemas`: a body or response schema that is one of these
   * objects becomes a `$ref` to its name. A schema used by more than one operation and not
   * named here is named `Schema1`, `Schema2`, … in order of first use (a name taken here is
   * skipped). `Problem` and `ValidationProblem` are the framework's own and cannot be used.
   */
  schemas?: { readonly [name: string]: Schema };
}

/**
 * A value inside the document: plain JSON, typed loosely so that a test or a tool can walk the
 * document (`doc.paths["/notes"].get.responses["200"]`) without casts.
 */
// deno-lint-ignore no-explicit-any
export type OpenApiValue = any;

/** An OpenAPI 3.1 operation object. */
export interface OpenApiOperation {
  /** The operation's summary. */
  summary?: string;
  /** The operation's parameters (path, query, header). */
  parameters?: OpenApiValue[];
  /** The request body. */
  requestBody?: OpenApiValue;
  /** Responses by status. */
  responses: { [status: string]: OpenApiValue };
  /** Any other field of the operation object (tags, deprecated, security…). */
  [field: string]: OpenApiValue;
}

/** An OpenAPI 3.1 document, as plain JSON data. */
export interface OpenApiDocument {
  /** The OpenAPI version, `"3.1.1"`. */
  openapi: string;
  /** Title, version, description. */
  info: { title: string; version: string; description?: string };
  /** The operations, by path template and lower-case method. */
  paths: { [path: string]: { [method: string]: OpenApiOperation } };
  /** Schemas, the framework's error responses, the bearer security scheme. */
  components: OpenApiValue;
  /** Any other top-level field (servers). */
  [field: string]: OpenApiValue;
}

// deno-lint-ignore no-explicit-any
type Item = Route<any> | Group<any>;
// deno-lint-ignore no-explicit-any
type AnyMiddleware = Middleware<any>;

/** The request parts that `validate()` and `describe()` check. */
type Part = keyof ValidateSchemas;
const PARTS: readonly Part[] = ["params", "query", "headers"];

/** What a route's middleware (its groups' first) declare. */
interface Declared {
  /** Every object schema that checks a part, outermost first: each one runs on the request. */
  checks: Record<Part, Schema[]>;
  /** Every body schema, outermost first: each `describe({ body })` decodes the body with its own. */
  bodies: Schema[];
  description: Description;
}

const PROBLEM = "application/problem+json";
// The methods of an OpenAPI 3.1 Path Item Object (§4.8.9.1).
const METHODS: readonly string[] = [
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE",
];
// The framework's own schemas, which its error responses refer to. A user schema may not take
// their names (the Writer refuses it): renaming these instead (say, to `WeftProblem`) would only
// move the collision to another name a user may choose, and would change `$ref`s that documents
// and generated clients written before already use.
const PROBLEM_NAME = "Problem";
const VALIDATION_NAME = "ValidationProblem";
// The statuses the framework answers itself, with the component naming each.
const ERRORS: Record<string, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  404: "NotFound",
  405: "MethodNotAllowed",
  413: "ContentTooLarge",
  415: "UnsupportedMediaType",
  500: "InternalServerError",
};
const ERROR_TEXT: Record<string, string> = {
  400: "The request is not valid: `errors` lists every failing field",
  401: "No valid bearer token (`WWW-Authenticate` names the scheme)",
  404: "No route matches the path",
  405: "The path has routes, but not for this method (`Allow` lists them)",
  413: "The request body is larger than the limit",
  415: "The request body is not `application/json`, or is in a content coding",
  500: "The server failed; the body holds no detail of the failure",
};

/**
 * Writes an OpenAPI 3.1 document for a router's routes. Paths come from the patterns (`:id`
 * becomes `{id}`; `*rest` becomes `{rest}`, documented as the rest of the path, slashes
 * included), methods as declared (the router's automatic HEAD and OPTIONS are left out, and so
 * are routes of a method OpenAPI 3.1 has no field for, such as QUERY or PROPFIND),
 * parameters from the route's `validate()` schemas (a path param it does not name is a string),
 * the request body and responses from its `describe()`, and on every operation the
 * `application/problem+json` errors the framework itself sends: 400 where something is validated,
 * 401 where bearer security is declared, 413 and 415 where a body is, and 500. 404 and 405,
 * which answer requests no operation matches, are in `components.responses`. Schemas are JSON
 * Schema 2020-12 from `toJsonSchema`; a schema named in `info.schemas` or used by several
 * operations is written once in `components.schemas`. A part checked by several `validate()` or
 * `describe()` (a group's and the route's) is documented with all their fields, as all of them
 * run: a field is required when any of them requires it, and a field two of them check gets
 * both schemas (`allOf`).
 *
 * @param source A `router()` (not a `chain()` around it), or the routes and groups given to it.
 * @param info The document's title, version, description, servers and named schemas.
 * @returns The document, plain JSON data (`JSON.stringify` it, or `ctx.json()` it).
 * @throws {TypeError} When `source` is neither a router nor a list of routes, or when
 * `info.schemas` names a schema `Problem` or `ValidationProblem` (the framework's own).
 *
 * @example
 * ```ts
 * import { get, router, schema, validate } from "../../mod.ts";
 * import { openapi } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const app = router([
 *   get("/boards/:board/notes", [validate({
 *     params: schema.object({ board: schema.integer() }),
 *     query: schema.object({ limit: schema.optional(schema.integer()) }),
 *   })], (ctx) => ctx.json([])),
 * ]);
 * const doc = openapi(app, { title: "Boards", version: "1.0.0" });
 * const list = doc.paths["/boards/{board}/notes"].get;
 * assert.deepEqual(list.parameters?.map((p) => `${p.in} ${p.name}`), ["path board", "query limit"]);
 * assert.deepEqual(Object.keys(list.responses), ["200", "400", "500"]);
 * ```
 */
export function openapi(
  // deno-lint-ignore no-explicit-any
  source: App | readonly (Route<any> | Group<any>)[],
  info: OpenApiInfo,
): OpenApiDocument {
  const items = Array.isArray(source)
    ? source as readonly Item[]
    : (source as App & { [SOURCE]?: readonly Item[] })[SOURCE];
  if (!Array.isArray(items)) {
    throw new TypeError(
      "Cannot write the OpenAPI document: give a router() (not a chain around it) or its routes",
    );
  }
  const writer = new Writer(info.schemas ?? {});
  const routes: [Route, Declared][] = [];
  collect(items, "", [], routes);
  // 1. count the uses of each body and response schema, so that reused ones become components
  for (const [, declared] of routes) {
    for (const schema of schemasOf(declared)) writer.count(schema);
  }
  // 2. write the operations
  const paths: OpenApiDocument["paths"] = {};
  const operationIds = new Map<string, string>();
  let bearer = false;
  for (const [route, declared] of routes) {
    // a method a Path Item has no field for (QUERY, PROPFIND…) cannot be written in 3.1
    if (!METHODS.includes(route.method)) continue;
    const path = template(route.pattern);
    const name = `${route.method} ${route.pattern}`;
    // OpenAPI 3.1 §4.8.10.1: an operationId is unique among all operations (a group's
    // describe({ operationId }) would give the same one to each of its routes)
    const id = declared.description.operationId;
    if (id !== undefined) {
      const other = operationIds.get(id);
      if (other !== undefined) {
        throw new TypeError(
          `Cannot write the OpenAPI document: "${other}" and "${name}" have the same ` +
            `operationId "${id}"; an operationId names one operation`,
        );
      }
      operationIds.set(id, name);
    }
    const operation = writer.operation(route.pattern, declared, name);
    if (declared.description.security === "bearer") bearer = true;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  // 3. the components
  const responses: OpenApiValue = {};
  for (const status of Object.keys(ERRORS)) {
    responses[ERRORS[status]] = {
      description: ERROR_TEXT[status],
      content: { [PROBLEM]: { schema: { $ref: `#/components/schemas/${PROBLEM_NAME}` } } },
    };
  }
  responses.BadRequest.content[PROBLEM].schema.$ref = `#/components/schemas/${VALIDATION_NAME}`;
  const components: OpenApiValue = {
    schemas: {
      ...writer.components,
      [PROBLEM_NAME]: PROBLEM_SCHEMA,
      [VALIDATION_NAME]: VALIDATION,
    },
    responses,
  };
  if (bearer) components.securitySchemes = { bearerAuth: { type: "http", scheme: "bearer" } };
  const doc: OpenApiDocument = {
    openapi: "3.1.1",
    info: {
      title: info.title,
      version: info.version,
      ...(info.description === undefined ? {} : { description: info.description }),
    },
    paths,
    components,
  };
  if (info.servers !== undefined) doc.servers = info.servers.map((url) => ({ url }));
  return doc;
}

// Groups flattened the way router() flattens them: the full pattern, and what the group
// middleware and then the route's own declare. Documentation fields: the innermost wins. The
// checked parts add up: every validate() and describe() in the chain checks the request, so a
// group's `query` and a route's `query` both apply.
function collect(
  items: readonly Item[],
  prefix: string,
  middleware: readonly AnyMiddleware[],
  out: [Route, Declared][],
): void {
  for (const item of items) {
    if ("prefix" in item) {
      collect(item.routes, prefix + item.prefix, [...middleware, ...item.middleware], out);
      continue;
    }
    const pattern = prefix !== "" && item.pattern === "/" ? prefix : prefix + item.pattern;
    const own = (item as Route & { [SOURCE]?: readonly AnyMiddleware[] })[SOURCE] ?? [];
    const declared: Declared = {
      checks: { params: [], query: [], headers: [] },
      bodies: [],
      description: {},
    };
    for (const layer of [...middleware, ...own]) {
      const validates = (layer as { [VALIDATES]?: ValidateSchemas })[VALIDATES];
      const description = (layer as { [DESCRIBES]?: Description })[DESCRIBES];
      if (description !== undefined) Object.assign(declared.description, description);
      // a group's describe({ body }) and the route's both decode the body: both apply
      const body = description?.body;
      if (body !== undefined && !declared.bodies.includes(body)) declared.bodies.push(body);
      for (const part of PARTS) {
        for (const schema of [validates?.[part], description?.[part]]) {
          // the same validate() in a group and its route checks the same thing twice
          if (schema !== undefined && !declared.checks[part].includes(schema)) {
            declared.checks[part].push(schema);
          }
        }
      }
    }
    out.push([{ method: item.method, pattern, handler: item.handler }, declared]);
  }
}

function schemasOf({ bodies, description }: Declared): Schema[] {
  const out: Schema[] = [...bodies];
  for (const response of Object.values(description.responses ?? {})) {
    const schema = isSchema(response) ? response : response.schema;
    if (schema !== undefined) out.push(schema);
  }
  return out;
}

function isSchema(value: Schema | ResponseDescription): value is Schema {
  return typeof (value as SchemaNode).kind === "string";
}

/**
 * `/files/:id/*rest` → `/files/{id}/{rest}`, read by the router's own parser: only a segment's
 * leading `:` or `*` is a param, so `/v1/books:batchGet` stays as it is.
 */
function template(pattern: string): string {
  return "/" + parsePattern(pattern)
    .map((segment) =>
      // a brace in a static segment would read as a template expression: it is written
      // percent-encoded, which the router decodes before matching
      segment.kind === "static"
        ? segment.value.replaceAll("{", "%7B").replaceAll("}", "%7D")
        : `{${segment.name}}`
    )
    .join("/");
}

// Whether a field of a params, query or headers schema must be present: all but an optional
// one and an array (validate() reads no value as [], a nullable array too: lib/_coerce.ts).
function requiredField(field: Schema): boolean {
  let node = field as SchemaNode;
  if (node.kind === "optional") return false;
  while (node.kind === "nullable") node = node.inner as SchemaNode;
  return node.kind !== "array";
}

class Writer {
  readonly components: Record<string, JsonSchemaDocument> = {};
  #names = new Map<Schema, string>();
  // Every name given or generated, so that a generated `Schema1` never takes a given one.
  #taken = new Set<string>([PROBLEM_NAME, VALIDATION_NAME]);
  #uses = new Map<Schema, number>();
  #next = 1;

  constructor(named: { readonly [name: string]: Schema }) {
    for (const [name, schema] of Object.entries(named)) {
      if (name === PROBLEM_NAME || name === VALIDATION_NAME) {
        throw new TypeError(
          `Cannot write the OpenAPI document: the schema name "${name}" in info.schemas is the ` +
            "framework's own (its error responses refer to it); choose another name",
        );
      }
      // OpenAPI 3.1 §4.8.7.1: a component's key; it is also written into `$ref` pointers
      if (!/^[A-Za-z0-9._-]+$/.test(name)) {
        throw new TypeError(
          `Cannot write the OpenAPI document: the schema name "${name}" in info.schemas is not ` +
            "a component name (letters, digits, '.', '-' and '_' only)",
        );
      }
      this.#names.set(schema, name);
      this.#taken.add(name);
    }
  }

  count(schema: Schema): void {
    this.#uses.set(schema, (this.#uses.get(schema) ?? 0) + 1);
  }

  /** A body or response schema: a `$ref` when it is named or reused, else inline. */
  schema(schema: Schema): JsonSchemaDocument {
    let name = this.#names.get(schema);
    if (name === undefined && (this.#uses.get(schema) ?? 0) > 1) {
      do name = `Schema${this.#next++}`; while (this.#taken.has(name));
      this.#names.set(schema, name);
      this.#taken.add(name);
    }
    if (name === undefined) return inline(schema);
    this.components[name] ??= inline(schema);
    return { $ref: `#/components/schemas/${name}` };
  }

  operation(
    pattern: string,
    { checks, bodies, description }: Declared,
    name: string,
  ): OpenApiOperation {
    const operation: OpenApiOperation = { responses: {} };
    for (const key of ["summary", "description", "operationId", "deprecated"] as const) {
      if (description[key] !== undefined) operation[key] = description[key];
    }
    if (description.tags !== undefined) operation.tags = [...description.tags];
    // parameters: every path segment, then the query and the headers validate() reads
    const parameters: OpenApiValue[] = [];
    for (const [part, schemas] of [["query", checks.query], ["body", bodies]] as const) {
      const field = refused(schemas);
      if (field !== undefined) {
        throw new TypeError(
          `Cannot write the OpenAPI document: a check of the ${part} of "${name}" refuses ` +
            `unknown fields, and another declares "${field}", which the first refuses: no ` +
            "request could carry it",
        );
      }
    }
    const params = fieldsOf(checks.params);
    const segments = parsePattern(pattern);
    // a params schema that requires a name the pattern has not refuses every request
    for (const [param, fields] of params) {
      const named = segments.some((segment) => segment.kind !== "static" && segment.name === param);
      if (!named && fields.some(requiredField)) {
        throw new TypeError(
          `Cannot write the OpenAPI document: the params schema of "${name}" requires ` +
            `"${param}", which its pattern does not have, so every request would be refused`,
        );
      }
    }
    for (const segment of segments) {
      if (segment.kind === "static") continue;
      const fields = params.get(segment.name);
      const parameter: OpenApiValue = {
        name: segment.name,
        in: "path",
        required: true,
        schema: fields === undefined ? { type: "string" } : both(fields),
      };
      if (segment.kind === "wildcard") {
        parameter.description = "The rest of the path, slashes included";
      }
      parameters.push(parameter);
    }
    for (const part of ["query", "headers"] as const) {
      for (const [name, fields] of fieldsOf(checks[part])) {
        parameters.push({
          name,
          in: part === "query" ? "query" : "header",
          // every check runs: the field may be left out only if each of them lets it (an array
          // left out is empty, a nullable one too: validate() reads no value as [],
          // lib/_coerce.ts)
          required: fields.some(requiredField),
          schema: both(fields),
        });
      }
    }
    if (parameters.length > 0) operation.parameters = parameters;
    if (bodies.length > 0) {
      // every describe({ body }) in the chain decodes the body: it must pass each of them
      const schema = bodies.length === 1
        ? this.schema(bodies[0])
        : { allOf: bodies.map((body) => this.schema(body)) };
      operation.requestBody = { required: true, content: { "application/json": { schema } } };
    }
    // responses: the declared ones, then the errors the framework sends for this operation
    const declared = Object.entries(description.responses ?? {});
    if (declared.length === 0) operation.responses["200"] = { description: "OK" };
    for (const [status, response] of declared) {
      const { description: text, schema } = isSchema(response) ? { schema: response } : response;
      operation.responses[status] = {
        description: text ?? STATUS_TEXT[Number(status)] ?? `Status ${status}`,
        ...(schema === undefined
          ? {}
          : { content: { "application/json": { schema: this.schema(schema) } } }),
      };
    }
    const errors: number[] = [500];
    const checked = PARTS.some((part) => checks[part].length > 0);
    if (checked || bodies.length > 0) errors.push(400);
    if (description.security === "bearer") {
      errors.push(401);
      operation.security = [{ bearerAuth: [] }];
    }
    if (bodies.length > 0) errors.push(413, 415);
    for (const status of errors.sort()) {
      operation.responses[status] ??= { $ref: `#/components/responses/${ERRORS[status]}` };
    }
    return operation;
  }
}

// The fields of a part's object schemas, by name in order of first appearance, each with every
// schema that checks it (one per object schema naming it, the same one once).
function fieldsOf(schemas: readonly Schema[]): Map<string, Schema[]> {
  const fields = new Map<string, Schema[]>();
  for (const schema of schemas) {
    const shape = (schema as SchemaNode & { shape: Record<string, Schema> }).shape;
    for (const [name, field] of Object.entries(shape)) {
      const list = fields.get(name);
      if (list === undefined) fields.set(name, [field]);
      else if (!list.includes(field)) list.push(field);
    }
  }
  return fields;
}

// A field that one object schema of a part declares and another, with `unknownKeys: "reject"`,
// refuses (a group's strict query and a route's own field): every check runs, so none passes.
function refused(schemas: readonly Schema[]): string | undefined {
  const objects = (schemas as readonly SchemaNode[]).filter((schema) =>
    schema.kind === "object"
  ) as ObjectSchema<Shape>[];
  for (const strict of objects) {
    if (strict.unknownKeys !== "reject") continue;
    for (const other of objects) {
      for (const key of Object.keys(other.shape)) {
        if (!Object.hasOwn(strict.shape, key)) return key;
      }
    }
  }
  return undefined;
}

// A field's schema in a parameter: a value must pass every check of it, so two or more are an
// `allOf`.
function both(fields: readonly Schema[]): JsonSchemaDocument {
  const text = (field: Schema) => nonNull(inline(field));
  return fields.length === 1 ? text(fields[0]) : { allOf: fields.map(text) };
}

// A parameter is text, which cannot say null: validate() reads a nullable field, or item, as
// its inner schema ("null" is the text "null"), so the parameter's schema is that one. Written
// with the null, it told clients that null may be sent, and a required field sent as null (left
// out, or "null") was refused.
function nonNull(schema: JsonSchemaDocument): JsonSchemaDocument {
  const { anyOf, items } = schema;
  if (
    Array.isArray(anyOf) && anyOf.length === 2 && (anyOf[1] as { type?: string }).type === "null"
  ) {
    return nonNull(anyOf[0] as JsonSchemaDocument);
  }
  if (schema.type === "array" && typeof items === "object" && items !== null) {
    return { ...schema, items: nonNull(items as JsonSchemaDocument) };
  }
  return schema;
}

// A schema inside the document: the document declares the dialect once (3.1's default is
// 2020-12), so each schema leaves out its own `$schema`.
function inline(schema: Schema): JsonSchemaDocument {
  const { $schema: _, ...rest } = toJsonSchema(schema);
  return rest;
}

// RFC 9457 problem details as lib/http/problem.ts writes them.
const PROBLEM_SCHEMA = {
  type: "object",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    instance: { type: "string" },
  },
  required: ["type", "title", "status"],
};

// A validate() 400: the problem with every failing field.
const VALIDATION = {
  allOf: [{ $ref: "#/components/schemas/Problem" }],
  type: "object",
  properties: {
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: {
          in: { type: "string" },
          path: { type: "string" },
          message: { type: "string" },
        },
        required: ["in", "path", "message"],
      },
    },
  },
};
