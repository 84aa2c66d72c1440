/**
 * Starts the demo application on http://localhost:8000 (`deno task start`).
 *
 * @module
 */
import { serve } from "../mod.ts";
import { app } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
serve(app, { port });
