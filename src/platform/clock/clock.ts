import { Injectable } from '@nestjs/common';

/**
 * The service's notion of "now" for business time (invite expiry, trials). One place to read it,
 * so tests can move it forward instead of waiting.
 */
@Injectable()
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves business time forward (tests). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
