import type { DomainEventHandler, DomainEventName, DurableEventHandler, DurableEventName, DurableHandlerOptions } from './domain-events.js';

export interface HandlerMark {
  method: string | symbol;
  event: string;
  durable?: DurableHandlerOptions;
}

const marks = new WeakMap<object, HandlerMark[]>();

function mark(target: object, entry: HandlerMark): void {
  marks.set(target.constructor, [...(marks.get(target.constructor) ?? []), entry]);
}

/** The handlers a provider's class declares with @OnEvent / @OnDurableEvent. */
export function handlerMarksOf(constructor: object): HandlerMark[] {
  return marks.get(constructor) ?? [];
}

/** This method runs once a transaction that emitted the event has committed (in process, may be lost with it). */
export function OnEvent<K extends DomainEventName>(event: K) {
  return <M extends DomainEventHandler<K>>(target: object, method: string | symbol, _descriptor: TypedPropertyDescriptor<M>): void => mark(target, { method, event });
}

/**
 * This method handles a durable event, at least once, from the job queue; it must be idempotent
 * (see DurableHandlerOptions.atomic). Its id is `<Class>.<method>`: renaming it strands the jobs
 * queued under the old name.
 */
export function OnDurableEvent<K extends DurableEventName>(event: K, options: DurableHandlerOptions = {}) {
  return <M extends DurableEventHandler<K>>(target: object, method: string | symbol, _descriptor: TypedPropertyDescriptor<M>): void => mark(target, { method, event, durable: options });
}
