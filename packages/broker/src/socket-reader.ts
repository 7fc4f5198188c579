import { Socket, type SocketConstructorOpts } from 'node:net';

/**
 * How a connection reads its socket. `pause` mutes it the way a paused Node stream does: a little more is
 * still read and kept (so a client's FIN is seen while a request waits), then reading stops; `resume`
 * hands on what was kept, in order, and reads again.
 */
export interface SocketReader {
  readonly socket: Socket;
  pause(): void;
  resume(): void;
}

/** What a muted connection still reads ahead: a Node stream's default high-water mark. */
const READ_AHEAD_BYTES = 16 * 1024;
const SHARED_READ_BUFFER_BYTES = 64 * 1024;

let shared: Buffer | undefined;

interface HandleHolder {
  _handle?: { useUserBuffer?: unknown } | null;
}

/**
 * Reads an accepted connection's bytes into one buffer every connection shares, instead of the fresh
 * 64 KiB buffer Node's default reads allocate per chunk: those chunks were the broker's largest garbage,
 * and the external memory behind them what started most of its full collections (issue 25's profiles).
 * The role of Kafka's `NetworkReceive`, reading into memory it owns.
 *
 * Node offers this (`onread` with a static buffer) only to sockets it creates, not to those a server
 * accepts: the accepted socket's handle is moved into one made with `onread`. That reaches into Node's
 * private `_handle`; where it is not there, the socket is read the ordinary way. Either way `onChunk`
 * gets a view valid only during the call, and must copy what it keeps (the frame decoder does).
 *
 * `accepted` must come from a server made with `pauseOnConnect: true`.
 */
export function readSocket(accepted: Socket, onChunk: (chunk: Buffer) => void): SocketReader {
  const holder = accepted as unknown as HandleHolder;
  const handle = holder._handle;
  if (handle === null || handle === undefined || typeof handle.useUserBuffer !== 'function') {
    accepted.on('data', onChunk);
    accepted.resume();
    return { socket: accepted, pause: () => accepted.pause(), resume: () => accepted.resume() };
  }
  return new SharedBufferReader(accepted, holder, onChunk);
}

class SharedBufferReader implements SocketReader {
  readonly socket: Socket;
  #muted = false;
  /** Read while muted, copied out of the shared buffer; handed on at `resume`. */
  readonly #held: Buffer[] = [];
  #heldBytes = 0;
  #handingOn = false;

  constructor(
    accepted: Socket,
    holder: HandleHolder,
    private readonly onChunk: (chunk: Buffer) => void,
  ) {
    shared ??= Buffer.allocUnsafeSlow(SHARED_READ_BUFFER_BYTES);
    const handle = holder._handle;
    // Detached first: destroying the emptied socket then only does the server's bookkeeping, closing nothing.
    holder._handle = null;
    accepted.destroy();
    // `handle` is how Node's own server gives an accepted handle to its Socket; @types/node leaves it out.
    this.socket = new Socket({
      handle,
      readable: true,
      writable: true,
      onread: { buffer: shared, callback: (bytes: number) => this.#read(bytes) },
    } as SocketConstructorOpts);
    this.socket.resume();
  }

  #read(bytes: number): void {
    const chunk = (shared as Buffer).subarray(0, bytes);
    if (!this.#muted) {
      this.onChunk(chunk);
      return;
    }
    this.#held.push(Buffer.from(chunk));
    this.#heldBytes += bytes;
    if (this.#heldBytes >= READ_AHEAD_BYTES) this.socket.pause();
  }

  pause(): void {
    this.#muted = true;
  }

  resume(): void {
    this.#muted = false;
    // A resume from inside onChunk (the connection asking for more) lets the loop below go on: no recursion.
    if (this.#handingOn) return;
    this.#handingOn = true;
    try {
      while (!this.#muted && this.#held.length > 0) {
        const chunk = this.#held.shift() as Buffer;
        this.#heldBytes -= chunk.length;
        this.onChunk(chunk);
      }
    } finally {
      this.#handingOn = false;
    }
    if (!this.#muted) this.socket.resume();
  }
}
