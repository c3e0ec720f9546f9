// Whether a server has closed its listening socket: what the web-UI lifetime tests assert after a release.
import { once } from 'node:events';
import { connect } from 'node:net';

/** Whether the server at `base` refuses new connections (a fresh socket, not a pooled one). */
export async function refused(base: string): Promise<boolean> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  try {
    await once(socket, 'connect');
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ECONNREFUSED';
  } finally {
    socket.destroy();
  }
}
