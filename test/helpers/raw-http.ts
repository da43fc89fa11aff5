// HTTP written by hand to a socket, for what fetch will not send: a request line spelled as
// is (fetch normalises the path), a request that is not HTTP, an Expect header.
import { connect } from 'node:net';

/** Writes `request` to `origin`'s port; resolves to the answer's status and its head, lowercased, once the head is in. */
export function rawHead(origin: string, request: string): Promise<{ status: number; head: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.destroy();
      const head = received.slice(0, end).toLowerCase();
      resolve({ status: Number(/^http\/1\.1 (\d{3})/.exec(head)?.[1]), head });
    });
    socket
      .on('error', reject)
      .on('close', () => reject(new Error(`the connection closed before an answer's head: ${JSON.stringify(received.slice(0, 200))}`)));
  });
}
