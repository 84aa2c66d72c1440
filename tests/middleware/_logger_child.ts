// Run by logger_test.ts in a child process: logs two requests with the default stderr output.
import { chain, get, router } from "../../mod.ts";
import { logger } from "../../lib/middleware/logger.ts";

const app = chain([logger()], router([get("/x", () => new Response("ok"))]));
await app.fetch(new Request("http://localhost/x?secret=hunter2"));
await app.fetch(new Request("http://localhost/missing"));
