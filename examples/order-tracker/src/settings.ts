// What the gateway tells the page at start: where GraphQL is, the demo logins (when the
// simulator serves) and the live poll interval. Read from outside, so checked against its shape.
import * as z from 'zod/mini';

const SETTINGS_URL = 'settings.json';

const settingsShape = z.object({
  endpoint: z.string(),
  pollIntervalMs: z.number(),
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
