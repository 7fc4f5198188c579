import type { Socket } from 'node:net';
import {
  FrameSizeError,
  type ParsedRequest,
  ProtocolDecodeError,
  parseRequest,
  ReusingFrameDecoder,
} from '@klog/protocol';
import { CloseConnection, type BrokerContext } from './context.js';
import { dispatch, type Handled, SERVED_CODECS } from './dispatch.js';

/** A connection keeps its frame buffer up to this size (a producer's 1 MB requests) between requests. */
const RETAINED_FRAME_BYTES = 2 * 1024 * 1024;

/** What a connection holds now, for the tests of its limits and for the shutdown log. */
export interface ConnectionStats {
  readonly id: number;
  readonly remote: string;
  /** Request bytes received and not yet handled. */
  readonly bufferedRequestBytes: number;
  /** Response bytes written and not yet taken by the kernel. */
  readonly bufferedResponseBytes: number;
  readonly requests: number;
  readonly busy: boolean;
}

/**
 * One client connection, as Kafka's SocketServer processor runs it: bytes split into frames, and requests
 * handled strictly one at a time, in the order they came, each answered before the next is read — the
 * connection is muted (its socket paused) while a request is being handled, and while more than
 * `maxBufferedResponseBytes` of responses wait for a client that does not read them. So a client that
 * stops reading makes the broker hold one response and that margin, no more: TCP does the rest.
 *
 * What Kafka closes a connection for closes it here, and only it: a frame over socket.request.max.bytes,
 * bytes that are not a request, an API or version klog does not serve, a failed acks=0 produce, and
 * connections.max.idle.ms without a byte either way.
 */
export class Connection {
  readonly #frames: ReusingFrameDecoder;
  #busy = false;
  #closed = false;
  /** Shutting down: the request in hand is finished and answered, no other is read. */
  #ending = false;
  #idle: (() => void) | undefined;
  /** Aborted when the connection closes: a handler still waiting gives up. */
  readonly #gone = new AbortController();
  #requests = 0;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private readonly ctx: BrokerContext,
    private readonly onClosed: (connection: Connection) => void,
  ) {
    // One kept buffer per connection, frames views into it (no garbage per request): a frame is valid only
    // until the next is read, and the next is read only once this one's request is done (sync handlers
    // use the bytes at once; a fetch that waits keeps none of them).
    this.#frames = new ReusingFrameDecoder(ctx.config.socketRequestMaxBytes, RETAINED_FRAME_BYTES, (n) => Buffer.allocUnsafeSlow(n));
    socket.setNoDelay(true);
    socket.setTimeout(ctx.config.connectionsMaxIdleMs);
    socket.on('data', (chunk: Buffer) => {
      this.#frames.push(chunk);
      this.#pump(true);
    });
    socket.on('drain', () => this.#pump(false));
    socket.on('timeout', () => this.close(`idle for connections.max.idle.ms (${ctx.config.connectionsMaxIdleMs} ms)`, 'info'));
    socket.on('end', () => this.close('the client closed the connection', 'debug'));
    socket.on('error', (error) => this.close(`socket error: ${error.message}`, 'debug'));
    socket.on('close', () => this.#closedNow());
    ctx.logger.debug(`conn ${this.remote} #${id}: accepted`);
  }

  get remote(): string {
    return `${this.socket.remoteAddress}:${this.socket.remotePort}`;
  }

  get busy(): boolean {
    return this.#busy;
  }

  stats(): ConnectionStats {
    return {
      id: this.id,
      remote: this.remote,
      bufferedRequestBytes: this.#frames.bufferedBytes,
      bufferedResponseBytes: this.socket.writableLength,
      requests: this.#requests,
      busy: this.#busy,
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
        this.socket.pause();
        return;
      }
      let frame: Uint8Array | undefined;
      try {
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
        this.socket.resume();
        return;
      }
      this.#handle(frame, pipelined);
      pipelined = true;
    }
    if (this.#busy) this.socket.pause();
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
      const { header } = parsed;
      const served = parsed.kind === 'unsupportedVersion' ? parsed.codec : undefined;
      const { first, line } = this.ctx.unsupported.note(header.clientId, header.apiKey, header.apiVersion, served);
      this.close(line, first ? 'warn' : 'debug');
      return;
    }
    const { header } = parsed;
    const name = parsed.kind === 'request' ? parsed.codec.name : 'ApiVersions';
    const counted = this.ctx.stats.get(name) ?? { requests: 0, pipelined: 0 };
    counted.requests++;
    if (pipelined) counted.pipelined++;
    this.ctx.stats.set(name, counted);
    const label = `${name} v${header.apiVersion}`;
    const done = (handled: Handled) => {
      if (this.ctx.logger.debugEnabled) {
        this.ctx.logger.debug(
          `conn ${this.remote} #${this.id}: ${label} correlation ${header.correlationId} client ${JSON.stringify(header.clientId)}: ${handled.summary}`,
        );
      }
      if (handled.close !== undefined) {
        // A teaching fault, already logged in its own line: the client sees the connection go, no answer.
        this.close(handled.close, 'debug');
        return;
      }
      if (handled.frame === undefined || this.#closed) return;
      this.socket.cork();
      for (const chunk of handled.frame.chunks) this.socket.write(chunk);
      this.socket.uncork();
    };
    const failed = (error: unknown) => {
      if (error instanceof CloseConnection) {
        this.close(`${label} correlation ${header.correlationId}: ${error.message}`, 'warn');
        return;
      }
      // A bug, not the client's doing: say so loudly, and drop this client rather than answer wrongly.
      this.ctx.logger.error(
        `conn ${this.remote} #${this.id}: ${label} correlation ${header.correlationId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      this.close('internal error (see the line above)', 'error');
    };
    let result: Handled | Promise<Handled>;
    try {
      result = dispatch(this.ctx, parsed, this.#gone.signal, { host: this.socket.remoteAddress ?? '' });
    } catch (error) {
      failed(error);
      return;
    }
    if (result instanceof Promise) {
      this.#busy = true;
      const running = result.then(done, failed).finally(() => {
        this.ctx.inFlight.delete(running);
        this.#busy = false;
        this.#pump(false);
      });
      this.ctx.inFlight.add(running);
    } else {
      done(result);
    }
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
    this.socket.pause();
    return new Promise((resolve) => {
      if (this.socket.destroyed) {
        resolve();
        return;
      }
      const timer = setTimeout(() => this.socket.destroy(), graceMs);
      timer.unref();
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.#idle = () => {
        this.#idle = undefined;
        this.#closed = true;
        this.socket.end();
      };
      if (!this.#busy) this.#idle();
    });
  }

  #closedNow(): void {
    this.#closed = true;
    this.#gone.abort();
    this.onClosed(this);
  }
}
