import { connect } from 'node:net';

/** What came back on a raw connection before it closed (or before `waitMs`). */
export interface RawAnswer {
  /** null when nothing parseable came back. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** The connection was closed by the server (not by our own deadline). */
  closedByServer: boolean;
  elapsedMs: number;
}

/** Writes `data` on a new connection, then waits (sending nothing more) for the answer and the close. */
export function rawExchange(port: number, data: string, waitMs = 6000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const received: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let settled = false;
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve({ ...parseRaw(Buffer.concat(received).toString('latin1')), closedByServer, elapsedMs: Date.now() - started });
    };
    const deadline = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined); // a reset after the answer: 'close' follows
    socket.on('close', () => finish(true));
    socket.on('end', () => finish(true));
  });
}

function parseRaw(text: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const [statusLine, ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine ?? '');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: status ? Number(status[1]) : null, headers, body: split < 0 ? '' : text.slice(split + 4) };
}
