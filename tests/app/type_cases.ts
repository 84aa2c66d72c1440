// The compile errors the app API promises. Each `// @ts-expect-error` line is an error the type
// checker must find: `deno check` (and `deno test`, which checks this file through
// types_test.ts) fails on an unused directive, and types_test.ts checks a copy with the
// directives removed, which must fail with exactly one error per directive.
import {
  auth,
  bearerTokens,
  chain,
  get,
  group,
  logger,
  type Middleware,
  post,
  router,
  schema,
  validate,
} from "../../mod.ts";

declare module "../../mod.ts" {
  interface Variables {
    requestId: string;
  }
}

interface User {
  name: string;
}

/** Never called: only type-checked. */
export function typeCases(): void {
  const requireUser = auth({
    validate: (token) => token === "t" ? { name: "ada" } as User : null,
  });
  const tenant: Middleware<{ tenant: string }> = (ctx, next) => {
    ctx.var.tenant = "t";
    return next();
  };
  const PublicUser = schema.object({ id: schema.integer(), name: schema.string() });

  // What is declared is typed, without a cast.
  chain([logger(), requireUser], (ctx) => ctx.text(ctx.var.user.name + ctx.get("auth.token")));
  chain([tenant], (ctx) => ctx.text(ctx.var.tenant + ctx.var.requestId));
  chain([auth({ validate: bearerTokens(new Map([["t", 1]])) })], (ctx) => {
    const id: number = ctx.var.user;
    return ctx.text(String(id));
  });

  // A typo in a variable's name.
  // @ts-expect-error "usr" is not a variable of auth()
  chain([requireUser], (ctx) => ctx.text(ctx.var.usr));
  // @ts-expect-error "usr" is not a key of ctx.get()
  chain([requireUser], (ctx) => ctx.text(String(ctx.get("usr"))));
  // A variable that no middleware before the handler sets.
  // @ts-expect-error logger() sets no user
  chain([logger()], (ctx) => ctx.text(ctx.var.user.name));
  // A variable of the wrong type.
  // @ts-expect-error user is a User, not a number
  chain([requireUser], (ctx) => ctx.text(String(ctx.var.user satisfies number)));
  chain([requireUser], (ctx) => {
    // @ts-expect-error set() checks the value's type by key
    ctx.set("user", 42);
    return ctx.text("");
  });
  // The unchecked cast is gone.
  // @ts-expect-error ctx.get<T>() takes a key, not a type to cast to
  chain([requireUser], (ctx) => ctx.text(String(ctx.get<number>("auth.token"))));
  // An app-wide variable keeps its declared type.
  chain([tenant], (ctx) => {
    // @ts-expect-error requestId is a string
    ctx.var.requestId = 1;
    return ctx.text("");
  });

  router([
    // Per-route middleware: params typed from the pattern, variables from the middleware.
    get("/notes/:id", [requireUser], (ctx) => ctx.text(ctx.params.id + ctx.var.user.name)),
    // @ts-expect-error "idd" is not a param of "/notes/:id"
    get("/notes/:id", [requireUser], (ctx) => ctx.text(ctx.params.idd)),
    // @ts-expect-error a route without auth() has no user
    post("/notes", (ctx) => ctx.text(ctx.var.user.name)),
    // @ts-expect-error tenant() sets no user
    post("/notes/:id", [tenant], (ctx) => ctx.text(ctx.var.user.name)),

    // Groups: their middleware type every route inside, nested groups too.
    group("/api", [requireUser], [
      get("/me", (ctx) => ctx.json({ name: ctx.var.user.name })),
      group("/t", [tenant], [get("/", (ctx) => ctx.text(ctx.var.user.name + ctx.var.tenant))]),
      // @ts-expect-error a typo inside a group
      get("/me2", (ctx) => ctx.text(ctx.var.usr)),
      // @ts-expect-error the outer group does not set tenant
      get("/t2", (ctx) => ctx.text(ctx.var.tenant)),
      // @ts-expect-error "idd" is not a param of "/api/:id" either
      get("/:id", (ctx) => ctx.text(ctx.params.idd)),
    ]),
  ]);

  // validate(): typed params, query and headers.
  const input = validate({
    params: schema.object({ id: schema.integer() }),
    query: schema.object({ limit: schema.optional(schema.integer()) }),
  });
  get("/n/:id", [input], (ctx) => ctx.json({ id: ctx.var.params.id + 1, l: ctx.var.query.limit }));
  get("/n/:id", [input], (ctx) => {
    // @ts-expect-error params.id is a number after validate()
    const id: string = ctx.var.params.id;
    return ctx.text(id);
  });
  // @ts-expect-error "limt" is not a query field
  get("/n/:id", [input], (ctx) => ctx.json(ctx.var.query.limt));
  // @ts-expect-error validate() without headers sets no headers variable
  get("/n/:id", [input], (ctx) => ctx.json(ctx.var.headers));

  // Response helpers.
  get("/r", (ctx) => ctx.redirect("/login", 303));
  // @ts-expect-error 200 is not a redirect status
  get("/r", (ctx) => ctx.redirect("/login", 200));
  get("/u", (ctx) => ctx.json({ id: 1, name: "a" }, { schema: PublicUser }));
  // @ts-expect-error the value does not match the schema
  get("/u", (ctx) => ctx.json({ id: "1", name: "a" }, { schema: PublicUser }));

  // Hooks.
  // @ts-expect-error onError returns a Response or nothing
  router([], { onError: () => "failed" });
  router([], { notFound: (ctx) => ctx.text("none", { status: 404 }), onError: () => {} });
}
