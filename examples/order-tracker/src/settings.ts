// What the gateway tells the page at start: where GraphQL is, the demo logins (when the
// simulator serves), the live poll interval, and whether to send the page's registered
// documents by hash (the gateway runs only trusted documents). Read from outside, so checked
// against its shape.
import * as z from 'zod/mini';

const SETTINGS_URL = 'settings.json';

const settingsShape = z.object({
  endpoint: z.string(),
  pollIntervalMs: z.number(),
  persistedDocuments: z.optional(z.boolean()),
  demo: z.array(z.object({ username: z.string(), password: z.string(), description: z.string() })),
});

export type TrackerSettings = z.infer<typeof settingsShape>;

/** The page's settings; what does not fit the shape counts as none (a sign-in with username and password, the default interval). */
export async function loadSettings(): Promise<TrackerSettings> {
  const fallback: TrackerSettings = { endpoint: '/graphql', pollIntervalMs: 30_000, demo: [] };
  try {
    const response = await fetch(SETTINGS_URL, { headers: { accept: 'application/json' } });
    const parsed = settingsShape.safeParse(await response.json());
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}
