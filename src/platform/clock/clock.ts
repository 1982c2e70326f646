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

/**
 * The system clock, on purpose, where a time is compared with another clock than business time:
 * a token's iat/exp (checked by the JWT library), a vendor's signed timestamp or token expiry, a
 * lease, retry or recovery time, and row stamps the database also writes with its own now().
 * Business time (expiries, trials, lifecycle stamps) is `Clock.now()`.
 */
export function systemNow(): Date {
  return new Date();
}
