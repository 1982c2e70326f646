import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';

/**
 * Counts route handlers still running, so shutdown can wait for them before the database
 * closes: a handler whose client went away keeps running, and the HTTP server's close does
 * not wait for it.
 */
@Injectable()
export class InflightTracker implements NestInterceptor {
  private count = 0;
  private waiters: Array<() => void> = [];

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.count++;
    return next.handle().pipe(finalize(() => this.done()));
  }

  get inflight(): number {
    return this.count;
  }

  /** Resolves when no handler runs, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private done(): void {
    this.count--;
    if (this.count === 0) for (const w of this.waiters.splice(0)) w();
  }
}
