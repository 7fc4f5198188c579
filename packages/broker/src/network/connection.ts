import type { Socket } from 'node:net';
import {
  FrameSizeError,
  type ParsedRequest,
  ProtocolDecodeError,
  parseRequest,
  type RequestHeader,
  type ResponseFrame,
  ReusingFrameDecoder,
} from '@klog/protocol';
import type { ClientInfo } from '../api/api-handler.js';
import { type BrokerContext, CloseConnection } from '../api/context.js';
import { dispatch, type Handled, SERVED_CODECS } from '../api/dispatch.js';
import { answerUnsupported, type UnsupportedVerdict } from '../api/unsupported.js';
import { type ChunkSink, readSocket, type SocketReader } from './socket-reader.js';

/** A connection keeps its frame buffer up to this size (a producer's 1 MB requests) between requests. */
const RETAINED_FRAME_BYTES = 2 * 1024 * 1024;
/**
 * A connection quiet this long lets its frame buffer go: an idle client then costs its socket and little
 * more. Past a consumer's heartbeat (3 s) and fetch waits, so one in use keeps its buffer.
 */
export const QUIET_MS = 5000;

/** The socket's own connection: its listeners are shared by every connection and find it here. */
const kConnection = Symbol('klog.connection');
type ConnectionSocket = Socket & { [kConnection]: Connection };

/** What a connection holds now, for the tests of its limits and for the shutdown log. */
export interface ConnectionStats {
  readonly id: number;
  readonly remote: string;
  /** Request bytes received and not yet handled. */
  readonly bufferedRequestBytes: number;
  /** The frame buffer the connection keeps between requests (let go once it has been quiet for QUIET_MS). */
  readonly frameBufferBytes: number;
  /** Response bytes written and not yet taken by the kernel. */
  readonly bufferedResponseBytes: number;
  readonly requests: number;
  readonly busy: boolean;
  /** Bytes this connection holds of the broker's memory pools (the frame being read or handled, responses). */
  readonly reservedBytes: number;
}

/**
 * One client connection, as Kafka's SocketServer processor runs it: bytes split into frames, and requests
 * handled strictly one at a time, in the order they came, each answered before the next is read — the
 * connection is muted (its socket paused) while a request is being handled, and while more than
 * `maxBufferedResponseBytes` of responses wait for a client that does not read them. So a client that
 * stops reading makes the broker hold one response and that margin, no more: TCP does the rest.
 *
 * What Kafka closes a connection for closes it here, and only it: a frame over socket.request.max.bytes,
 * bytes that are not a request, a failed acks=0 produce, and connections.max.idle.ms without a byte either
 * way — and an API or version klog does not serve only where no response can be written in that version
 * (klog answers UNSUPPORTED_VERSION where it can: unsupported.ts).
 */
export class Connection implements ChunkSink, ClientInfo {
  readonly #frames: ReusingFrameDecoder;
  #busy = false;
  #closed = false;
  /** Shutting down: the request in hand is finished and answered, no other is read. */
  #ending = false;
  #idle: (() => void) | undefined;
  /** Aborted when the connection closes: a handler still waiting gives up. Made when one first asks. */
  #gone: AbortController | undefined;
  /** When bytes last moved either way (performance.now()): connections.max.idle.ms counts from here. */
  #lastActive = performance.now();
  #requests = 0;
  /** Reserved from the memory pool for the frame being read or handled (4 + its size); 0 for none. */
  #frameBytes = 0;
  /** Reserved for responses written and not yet taken by the kernel. */
  #responseBytes = 0;
  /** Waiting for the pool to grant the pending frame's bytes: gives up the place. */
  #cancelWait: (() => void) | undefined;

  readonly socket: Socket;
  /** Mutes and unmutes the connection (Kafka's Selector.mute): its pause and resume, in place of the socket's. */
  readonly #reader: SocketReader;

  constructor(
    readonly id: number,
    /** As the server accepted it (made with `pauseOnConnect`): reading starts here. */
    accepted: Socket,
    /** The client's address and port as accepted: the socket forgets them once closed. */
    readonly host: string,
    readonly port: number,
    private readonly ctx: BrokerContext,
    /** One function for every connection (a closure each would be an idle connection's largest part). */
    private readonly onClosed: (connection: Connection) => void,
  ) {
    // One kept buffer per connection, frames views into it (no garbage per request): a frame is valid only
    // until the next is read, and the next is read only once this one's request is done (sync handlers
    // use the bytes at once; a fetch that waits keeps none of them).
    // Memory of its own, not a slice of Node's pooled slab: a connection in use keeps it, and a kept slice
    // would keep the whole 8 KiB slab.
    this.#frames = new ReusingFrameDecoder(ctx.config.socketRequestMaxBytes, RETAINED_FRAME_BYTES, (n) =>
      Buffer.allocUnsafeSlow(n),
    );
    this.#reader = readSocket(accepted, this);
    const socket = this.#reader.socket;
    this.socket = socket;
    (socket as ConnectionSocket)[kConnection] = this;
    socket.setNoDelay(true);
    // connections.max.idle.ms is the broker's sweep (expireIfIdle), not a timer a socket (Kafka's Selector).
    socket.on('drain', Connection.#onDrain);
    socket.on('end', Connection.#onEnd);
    socket.on('error', Connection.#onError);
    socket.on('close', Connection.#onClose);
    // Built only when kept (a line per connection accepted).
    if (ctx.logger.debugEnabled) ctx.logger.debug(`conn ${this.remote} #${id}: accepted`);
  }

  static #of(socket: Socket): Connection {
    return (socket as ConnectionSocket)[kConnection];
  }

  // The socket's listeners, one set for every connection: Node calls each on the socket (`this`).
  static readonly #onDrain = function (this: Socket): void {
    const c = Connection.#of(this);
    c.#lastActive = performance.now();
    c.#pump(false);
  };

  static readonly #onEnd = function (this: Socket): void {
    Connection.#of(this).close('the client closed the connection', 'debug');
  };

  static readonly #onError = function (this: Socket, error: Error): void {
    Connection.#of(this).close(`socket error: ${error.message}`, 'debug');
  };

  static readonly #onClose = function (this: Socket): void {
    Connection.#of(this).#closedNow();
  };

  /** Bytes read (a view valid during the call): copied into the frame buffer, then what is whole handled. */
  received(chunk: Buffer): void {
    // Once closing, bytes are read and dropped: only reading finds the client's FIN, which ends the socket.
    if (this.#closed) return;
    this.#lastActive = performance.now();
    this.#frames.push(chunk);
    this.#pump(true);
  }

  get gone(): AbortSignal {
    if (this.#gone === undefined) {
      this.#gone = new AbortController();
      if (this.socket.destroyed) this.#gone.abort();
    }
    return this.#gone.signal;
  }

  /**
   * The broker's sweep: closes the connection after connections.max.idle.ms without a byte either way, as
   * Kafka's Selector expires idle channels, and lets a quiet one's frame buffer go. A connection with a
   * request in hand (a Fetch or JoinGroup waiting) is not idle: its answer is owed.
   */
  expireIfIdle(now: number): void {
    if (this.#closed || this.#busy) return;
    const quiet = now - this.#lastActive;
    const idleMs = this.ctx.config.connectionsMaxIdleMs;
    if (quiet >= idleMs) {
      this.close(`idle for connections.max.idle.ms (${idleMs} ms)`, 'info');
      return;
    }
    // A buffer already let go has capacity 0: nothing to do for it again.
    if (
      quiet >= QUIET_MS &&
      this.#frames.capacity > 0 &&
      this.#frameBytes === 0 &&
      this.#cancelWait === undefined
    ) {
      this.#frames.trim();
    }
  }

  get remote(): string {
    return `${this.host}:${this.port}`;
  }

  get busy(): boolean {
    return this.#busy;
  }

  stats(): ConnectionStats {
    return {
      id: this.id,
      remote: this.remote,
      bufferedRequestBytes: this.#frames.bufferedBytes,
      frameBufferBytes: this.#frames.capacity,
      bufferedResponseBytes: this.socket.writableLength,
      requests: this.#requests,
      busy: this.#busy,
      reservedBytes: this.#frameBytes + this.#responseBytes,
    };
  }

  /**
   * Handles the frames that are here, one at a time, until one must wait or the output backs up. Only the
   * first frame of a pump that new bytes started can have been sent after the previous answer; any other
   * was pipelined.
   */
  #pump(newBytes: boolean): void {
    let pipelined = !newBytes;
    while (!this.#closed && !this.#busy) {
      if (this.#ending) {
        this.#idle?.();
        return;
      }
      // Never below the socket's high-water mark: only a write past that mark emits the 'drain' that resumes.
      const limit = Math.max(this.ctx.config.maxBufferedResponseBytes, this.socket.writableHighWaterMark);
      if (this.socket.writableLength > limit) {
        // The client is not reading: stop reading its requests until the kernel takes what waits ('drain').
        this.#reader.pause();
        return;
      }
      let frame: Uint8Array | undefined;
      try {
        // The pending frame's bytes are reserved before more of them are read: else wait, not reading.
        if (!this.#reserveFrame()) return;
        frame = this.#frames.next();
      } catch (error) {
        if (error instanceof FrameSizeError) {
          this.close(`refused a frame: ${error.message}`, 'warn');
          return;
        }
        throw error;
      }
      if (frame === undefined) {
        this.#frames.release();
        this.#reader.resume();
        return;
      }
      this.#handle(frame, pipelined);
      if (!this.#busy) this.#releaseFrame();
      pipelined = true;
    }
    if (this.#busy) this.#reader.pause();
  }

  #handle(frame: Uint8Array, pipelined: boolean): void {
    this.#requests++;
    let parsed: ParsedRequest;
    try {
      parsed = parseRequest(frame, SERVED_CODECS);
    } catch (error) {
      if (error instanceof ProtocolDecodeError) {
        this.close(`a request klog cannot read (${error.message})`, 'warn');
        return;
      }
      throw error;
    }
    if (parsed.kind === 'unknownApi' || parsed.kind === 'unsupportedVersion') {
      this.#unsupported(frame, parsed);
      return;
    }
    const { header } = parsed;
    const name = parsed.kind === 'request' ? parsed.codec.name : 'ApiVersions';
    const counted = this.ctx.stats.get(name) ?? { requests: 0, pipelined: 0 };
    counted.requests++;
    if (pipelined) counted.pipelined++;
    this.ctx.stats.set(name, counted);
    let result: Handled | Promise<Handled>;
    try {
      result = dispatch(this.ctx, parsed, this);
    } catch (error) {
      this.#failed(name, header, error);
      return;
    }
    if (result instanceof Promise) {
      this.#busy = true;
      const running = result
        .then(
          (handled) => this.#answer(name, header, handled),
          (error: unknown) => this.#failed(name, header, error),
        )
        .finally(() => {
          this.ctx.inFlight.delete(running);
          this.#releaseFrame();
          this.#busy = false;
          this.#pump(false);
        });
      this.ctx.inFlight.add(running);
    } else {
      // Most requests answer at once: no closures made for them (issue 44: an idle connection's garbage).
      this.#answer(name, header, result);
    }
  }

  /** Sends what handling a request came to (or closes, for a teaching fault). */
  #answer(name: string, header: RequestHeader, handled: Handled): void {
    if (this.ctx.logger.debugEnabled) {
      this.ctx.logger.debug(
        `conn ${this.remote} #${this.id}: ${name} v${header.apiVersion} correlation ${header.correlationId} client ${JSON.stringify(header.clientId)}: ${handled.summary}`,
      );
    }
    if (handled.close !== undefined) {
      // A teaching fault, already logged in its own line: the client sees the connection go, no answer.
      this.close(handled.close, 'debug');
      return;
    }
    if (handled.frame === undefined || this.#closed) return;
    this.#write(handled.frame);
  }

  /** A handler threw or rejected: the client's doing (CloseConnection) or a bug, and the connection closes. */
  #failed(name: string, header: RequestHeader, error: unknown): void {
    const label = `${name} v${header.apiVersion} correlation ${header.correlationId}`;
    if (error instanceof CloseConnection) {
      this.close(`${label}: ${error.message}`, 'warn');
      return;
    }
    // A bug, not the client's doing: say so loudly, and drop this client rather than answer wrongly.
    this.ctx.logger.error(
      `conn ${this.remote} #${this.id}: ${label} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    this.close('internal error (see the line above)', 'error');
  }

  /**
   * A request for an API or version klog does not serve: answered UNSUPPORTED_VERSION in its own version
   * where klog can write one, else the connection closed; said once per client and API at WARN either way.
   */
  #unsupported(
    frame: Uint8Array,
    parsed: Extract<ParsedRequest, { kind: 'unknownApi' | 'unsupportedVersion' }>,
  ): void {
    const { header } = parsed;
    let verdict: UnsupportedVerdict;
    try {
      verdict = answerUnsupported(frame);
    } catch (error) {
      if (error instanceof ProtocolDecodeError) {
        this.close(`a request klog cannot read (${error.message})`, 'warn');
        return;
      }
      throw error;
    }
    const served = parsed.kind === 'unsupportedVersion' ? parsed.codec : undefined;
    const { first, line } = this.ctx.unsupported.note(
      header.clientId,
      header.apiKey,
      header.apiVersion,
      served,
      verdict,
    );
    if (verdict.kind === 'close') {
      this.close(line, first ? 'warn' : 'debug');
      return;
    }
    this.ctx.logger[first ? 'warn' : 'debug'](`conn ${this.remote} #${this.id}: ${line}`);
    this.#write(verdict.frame);
  }

  /** Sends a response, held against the pool until the kernel takes each chunk (a write's callback runs then, or on close). */
  #write(frame: ResponseFrame): void {
    const pool = this.ctx.responseMemory;
    pool.reserve(frame.byteLength);
    this.#responseBytes += frame.byteLength;
    this.#lastActive = performance.now();
    const { chunks } = frame;
    // One chunk (a Produce's answer, most others) goes straight out: corking it would only queue it in the
    // stream and take it off again at uncork, a measurable part of a Produce's CPU (issue 44).
    if (chunks.length === 1) {
      this.#send(chunks[0]!);
      return;
    }
    this.socket.cork();
    for (const chunk of chunks) this.#send(chunk);
    this.socket.uncork();
  }

  #send(chunk: Uint8Array): void {
    const pool = this.ctx.responseMemory;
    this.socket.write(chunk, () => {
      this.#responseBytes -= chunk.byteLength;
      pool.release(chunk.byteLength);
      // Written (or dropped with the connection): a Fetch's records buffer can be read into again.
      this.ctx.readBuffers.give(chunk);
    });
  }

  /** Closes the connection (once), saying why at `level`. */
  close(reason: string, level: 'debug' | 'info' | 'warn' | 'error' = 'info'): void {
    if (this.#closed) return;
    this.#closed = true;
    this.ctx.logger[level](`conn ${this.remote} #${this.id}: closed: ${reason}`);
    this.socket.destroy();
  }

  /**
   * Shutdown: reads no further request, finishes the one in hand and sends its response, then ends the
   * connection; one that has not closed after `graceMs` is destroyed.
   */
  end(graceMs: number): Promise<void> {
    this.#ending = true;
    this.#reader.pause();
    return new Promise((resolve) => {
      if (this.socket.destroyed) {
        resolve();
        return;
      }
      // Not unref'd: a paused socket is no handle the event loop waits for, so this timer is what keeps the
      // process alive until the connection is gone (else Node exits 13, the log never closed).
      const timer = setTimeout(() => this.socket.destroy(), graceMs);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.#idle = () => {
        this.#idle = undefined;
        this.#closed = true;
        this.socket.end();
        // Read again (and drop what comes): a paused socket would never see the client's FIN, and a socket
        // with unread bytes never emits 'end', so it would not close before the grace ran out.
        this.#reader.resume();
      };
      if (!this.#busy) this.#idle();
    });
  }

  /**
   * Reserves the pending frame's bytes once its size is known: true when they are (or no size is here yet);
   * false when the pool is spent, the socket then paused until the pool grants them.
   */
  #reserveFrame(): boolean {
    if (this.#frameBytes > 0 || this.#cancelWait !== undefined) return this.#cancelWait === undefined;
    const size = this.#frames.peekSize();
    if (size === undefined) return true;
    const pool = this.ctx.requestMemory;
    if (pool.tryReserve(4 + size)) {
      this.#frameBytes = 4 + size;
      return true;
    }
    this.#reader.pause();
    this.#cancelWait = pool.waitFor(4 + size, () => {
      this.#cancelWait = undefined;
      this.#frameBytes = 4 + size;
      if (this.#closed) {
        this.#releaseFrame();
        return;
      }
      this.#reader.resume();
      this.#pump(false);
    });
    return false;
  }

  #releaseFrame(): void {
    if (this.#frameBytes === 0) return;
    this.ctx.requestMemory.release(this.#frameBytes);
    this.#frameBytes = 0;
  }

  #closedNow(): void {
    this.#cancelWait?.();
    this.#cancelWait = undefined;
    if (!this.#busy) this.#releaseFrame();
    this.#closed = true;
    this.#gone?.abort();
    this.onClosed(this);
  }
}
