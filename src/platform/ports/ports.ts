import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

/**
 * A query one module answers for another that may not import it (the platform, or a module lower
 * in the import graph): the consumer defines the token and the shape, the owner provides it in its
 * own providers (`{ provide: TOKEN, useExisting: OwnerService }`). Nothing is registered late: the
 * provider is part of the owner's module definition, and the consumer looks it up once every
 * provider is built (onModuleInit), so an unprovided port stops the app from starting.
 */
export type Port<T> = symbol & { readonly __port?: T };

export function definePort<T>(name: string): Port<T> {
  return Symbol(name) as Port<T>;
}

/** The provider of a port by an existing class, checked by the compiler: the class must answer the port's shape. */
export function providePort<T>(port: Port<T>, useExisting: abstract new (...args: never[]) => T): { provide: Port<T>; useExisting: abstract new (...args: never[]) => T } {
  return { provide: port, useExisting };
}

@Injectable()
export class Ports {
  constructor(private readonly moduleRef: ModuleRef) {}

  /** The one provider of a port; throws when no module provides it. */
  one<T>(port: Port<T>): T {
    return this.moduleRef.get<T>(port, { strict: false });
  }

  /** The provider of a port, or undefined when no module provides it (the consumer then fails closed). */
  find<T>(port: Port<T>): T | undefined {
    try {
      return this.one(port);
    } catch {
      return undefined;
    }
  }

  /** Every provider of a port (several modules answer it, each with its part). */
  all<T>(port: Port<T>): T[] {
    try {
      return this.moduleRef.get<T, T>(port, { strict: false, each: true });
    } catch {
      return [];
    }
  }
}
