import type { FactoryProvider } from '@nestjs/common';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { APP_CONFIG } from './config.token.js';

/** The environment the service started with (variable name -> raw value). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What a slice may know of the platform when it checks its own rules. */
export interface SliceContext {
  readonly isProduction: boolean;
}

/** What a slice needs of the platform configuration to read itself inside Nest. */
interface ConfigSource extends SliceContext {
  readonly environment: Environment;
}

export type SliceResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * One module's settings: the environment variables it reads (a zod object keyed by variable
 * name), the shape its code sees, and the rules across its variables. Defined in the owning
 * module (`<domain>.config.ts`), provided to Nest by `provider`, injected with
 * `@Inject(slice.token)`.
 */
export interface ConfigSlice<T> {
  readonly name: string;
  /** The DI token of the slice's value. */
  readonly token: string;
  /** Reads the slice from the platform configuration when the module is built: a bad value fails the boot. */
  readonly provider: FactoryProvider<T>;
  /** The value, or one line per problem, each naming its variable. */
  parse(environment: Environment, context: SliceContext): SliceResult<T>;
  /** The value; a problem throws a ConfigError naming the variable. */
  read(source: ConfigSource): T;
}

/** `  VARIABLE: problem` lines, the shape of every configuration message. */
export const issueLines = (error: z.ZodError): string[] => error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`);

export const configError = (problems: readonly string[]): ConfigError => new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);

export function defineConfigSlice<F extends z.ZodRawShape, T>(
  name: string,
  spec: {
    /** The variables, by name: each parses its raw value (defaults included). */
    variables: F;
    /** A rule across variables; the problem names the variable(s) to fix. */
    check?: (env: z.output<z.ZodObject<F>>, context: SliceContext) => string | undefined;
    /** The shape the module's code reads. */
    build: (env: z.output<z.ZodObject<F>>, context: SliceContext) => T;
  },
): ConfigSlice<T> {
  const schema = z.object(spec.variables);
  const token = `config:${name}`;
  const slice: ConfigSlice<T> = {
    name,
    token,
    provider: { provide: token, inject: [APP_CONFIG], useFactory: (source: ConfigSource) => slice.read(source) },
    parse(environment, context) {
      const parsed = schema.safeParse(environment);
      if (!parsed.success) return { ok: false, problems: issueLines(parsed.error) };
      const problem = spec.check?.(parsed.data, context);
      if (problem) return { ok: false, problems: [problem] };
      return { ok: true, value: spec.build(parsed.data, context) };
    },
    read(source) {
      const result = slice.parse(source.environment, source);
      if (!result.ok) throw configError(result.problems);
      return result.value;
    },
  };
  return slice;
}
