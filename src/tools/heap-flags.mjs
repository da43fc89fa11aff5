// The V8 heap flags the production launcher (start.mjs) gives node: sized for the machine or
// the container's memory limit, or the operator's NODE_HEAP_FLAGS instead. Plain JavaScript,
// copied into dist/ by the build.

const MIB = 2 ** 20;
/** The largest young-generation semi-space (MiB): fewer scavenges promoting request garbage; 32 cost 20-35 MB more peak memory for no CPU the benchmark could show (bench/NOTES.md). */
const MAX_SEMI_SPACE_MIB = 16;
/** Old-generation growth after a full GC (V8's default lets it double): a smaller peak. */
const HEAP_GROWING_PERCENT = 50;
/** The share of a memory limit the V8 heap may take; the rest is node's own (buffers, sockets, code). */
const HEAP_SHARE_OF_LIMIT = 0.75;

/**
 * The node flags for a process with `limitBytes` of memory (0, or not less than the machine's
 * memory: no limit). Limited, the heap (young generation, three semi-spaces, at most a quarter
 * of it, plus the old generation) takes 75 % of the limit, so V8 collects hard before the
 * kernel's OOM killer would act; unlimited, V8 sizes the old generation itself.
 * @param {Record<string, string | undefined>} env
 * @param {number} limitBytes
 * @param {number} machineBytes
 * @returns {string[]}
 */
export function heapFlags(env, limitBytes, machineBytes) {
  if (env.NODE_HEAP_FLAGS !== undefined) return env.NODE_HEAP_FLAGS.split(/\s+/).filter(Boolean);
  const growth = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  if (!(limitBytes > 0 && limitBytes < machineBytes)) return [`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`, growth];
  const heapMib = Math.floor((limitBytes / MIB) * HEAP_SHARE_OF_LIMIT);
  const semiSpaceMib = Math.max(1, Math.min(MAX_SEMI_SPACE_MIB, Math.floor(heapMib / 12)));
  return [`--max-semi-space-size=${semiSpaceMib}`, growth, `--max-old-space-size=${heapMib - 3 * semiSpaceMib}`];
}
