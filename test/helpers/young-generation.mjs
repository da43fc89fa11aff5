// Preloaded into a gateway (node --import): on SIGUSR2, one line on stderr with the bytes V8's
// young generation holds (its two semi-spaces, committed). Reads V8's figures, changes nothing.
import { getHeapSpaceStatistics } from 'node:v8';

process.on('SIGUSR2', () => {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  process.stderr.write(`young generation: ${young?.space_size ?? 'unknown'} bytes\n`);
});
