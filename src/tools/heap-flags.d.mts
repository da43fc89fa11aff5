// The type of heap-flags.mjs, plain JavaScript the build copies as it is: for the tests and the benchmark that import it.

/** The node flags for a process with `limitBytes` of memory (0, or not less than the machine's: no limit), or NODE_HEAP_FLAGS's. */
export function heapFlags(env: Record<string, string | undefined>, limitBytes: number, machineBytes: number): string[];
