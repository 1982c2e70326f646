import { z } from 'zod';

// zod compiles fast object parsers with `new Function` unless told not to; the Content-Security-Policy
// (script-src 'self', no 'unsafe-eval') forbids that, and zod's probe for it is reported as a
// violation. Imported first by main.tsx, before any schema of the contracts is built.
z.config({ jitless: true });
