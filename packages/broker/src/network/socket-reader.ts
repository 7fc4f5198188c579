import type { Socket } from 'node:net';

/**
 * How a connection reads its socket. `pause` mutes it the way a paused Node stream does: a little more is
 * still read and kept (so a client's FIN is seen while a request waits), then reading stops; `resume`
 * hands on what was kept, in order, and reads again.
 */
export interface SocketReader {
  readonly socket: Socket;
  /**
   * `shared-buffer`: the fast path below, reading into the one buffer every connection shares; `stream`:
   * Node's ordinary reads, where this Node lacks the private handle and keys the fast path needs (a test
   * fails on such a Node, so an upgrade that turns it off is seen by more than the bench).
   */
  readonly path: 'shared-buffer' | 'stream';
  pause(): void;
  resume(): void;
}

/** Where a connection's bytes go: a view valid only during the call, to be copied if kept. */
export interface ChunkSink {
  received(chunk: Buffer): void;
}

/** What a muted connection still reads ahead: a Node stream's default high-water mark. */
const READ_AHEAD_BYTES = 16 * 1024;
const SHARED_READ_BUFFER_BYTES = 64 * 1024;

let shared: Buffer | undefined;

interface HandleHolder {
  _handle?: { useUserBuffer?: (buffer: Uint8Array) => void } | null;
}

/**
 * Node's own keys for a socket's `onread` (net.js's kBuffer and kBufferCb, set to null on every Socket it
 * makes): found by name on the first socket, undefined where this Node has no such keys.
 */
let onreadKeys: { buffer: symbol; callback: symbol } | null | undefined = null;

function findOnreadKeys(socket: Socket): { buffer: symbol; callback: symbol } | undefined {
  if (onreadKeys !== null) return onreadKeys;
  const keys = Object.getOwnPropertySymbols(socket);
  const buffer = keys.find((k) => k.description === 'kBuffer');
  const callback = keys.find((k) => k.description === 'kBufferCb');
  onreadKeys = buffer !== undefined && callback !== undefined ? { buffer, callback } : undefined;
  return onreadKeys;
}

/** The reader of a socket: the read callback, one for every socket, finds it here. */
const kReader = Symbol('klog.reader');
type ReaderSocket = Socket & { [kReader]: SharedBufferReader };

/**
 * Reads an accepted connection's bytes into one buffer every connection shares, instead of the fresh
 * 64 KiB buffer Node's default reads allocate per chunk: those chunks were the broker's largest garbage,
 * and the external memory behind them what started most of its full collections (issue 25's profiles).
 * The role of Kafka's `NetworkReceive`, reading into memory it owns.
 *
 * Node offers this (`onread` with a static buffer) only to sockets it creates, not to those a server
 * accepts. The accepted socket is given it as Node's constructor would: its handle told to read into the
 * buffer, the socket's own onread keys set. That reaches into Node's private `_handle` and keys; where they
 * are not there, the socket is read the ordinary way. (Moving the handle into a second Socket made with
 * `onread` did the same at twice the garbage per connection: issue 25's idle-connection figure.) Either way
 * the sink gets a view valid only during the call, and must copy what it keeps (the frame decoder does).
 *
 * `accepted` must come from a server made with `pauseOnConnect: true`.
 */
export function readSocket(accepted: Socket, sink: ChunkSink): SocketReader {
  const handle = (accepted as unknown as HandleHolder)._handle;
  const keys = findOnreadKeys(accepted);
  if (
    handle === null ||
    handle === undefined ||
    typeof handle.useUserBuffer !== 'function' ||
    keys === undefined
  ) {
    accepted.on('data', (chunk: Buffer) => sink.received(chunk));
    accepted.resume();
    return {
      socket: accepted,
      path: 'stream',
      pause: () => accepted.pause(),
      resume: () => accepted.resume(),
    };
  }
  shared ??= Buffer.allocUnsafeSlow(SHARED_READ_BUFFER_BYTES);
  const socket = accepted as Socket & Record<symbol, unknown>;
  socket[keys.buffer] = shared;
  // One function for every socket, no closure per connection.
  socket[keys.callback] = SharedBufferReader.onRead;
  handle.useUserBuffer(shared);
  return new SharedBufferReader(accepted, sink);
}

class SharedBufferReader implements SocketReader {
  readonly path = 'shared-buffer';
  #muted = false;
  /** Read while muted, copied out of the shared buffer; handed on at `resume` (none kept for most). */
  #held: Buffer[] | undefined;
  #heldBytes = 0;
  #handingOn = false;

  constructor(
    readonly socket: Socket,
    private readonly sink: ChunkSink,
  ) {
    (socket as ReaderSocket)[kReader] = this;
    socket.resume();
  }

  /** Node calls it on the socket (`this`) with the count read into the shared buffer. */
  static readonly onRead = function (this: Socket, bytes: number): void {
    (this as ReaderSocket)[kReader].#read(bytes);
  };

  #read(bytes: number): void {
    const chunk = (shared as Buffer).subarray(0, bytes);
    if (!this.#muted) {
      this.sink.received(chunk);
      return;
    }
    this.#held ??= [];
    this.#held.push(Buffer.from(chunk));
    this.#heldBytes += bytes;
    if (this.#heldBytes >= READ_AHEAD_BYTES) this.socket.pause();
  }

  pause(): void {
    this.#muted = true;
  }

  resume(): void {
    this.#muted = false;
    // A resume from inside the sink (the connection asking for more) lets the loop below go on: no recursion.
    if (this.#handingOn) return;
    this.#handingOn = true;
    try {
      while (!this.#muted && this.#held !== undefined && this.#held.length > 0) {
        const chunk = this.#held.shift() as Buffer;
        this.#heldBytes -= chunk.length;
        this.sink.received(chunk);
      }
      if (this.#held?.length === 0) this.#held = undefined;
    } finally {
      this.#handingOn = false;
    }
    if (!this.#muted) this.socket.resume();
  }
}
