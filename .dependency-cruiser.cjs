// Module boundaries (docs/development.md "Lint and format"), checked by `npm run lint`.
// Paths are relative to the repository root; `$1` in a `to` path is the module captured in `from`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-module',
      comment: 'src/platform/ holds no domain logic: it never imports src/modules/.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'contracts-import-server',
      comment: 'src/contracts/ is shared with the web app: it imports nothing from src/modules/ or src/platform/.',
      severity: 'error',
      from: { path: '^src/contracts/' },
      to: { path: '^src/(modules|platform)/' },
    },
    {
      name: 'web-imports-server',
      comment: 'The web app imports from the server only src/contracts/.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/contracts/' },
    },
    {
      name: 'module-internals',
      comment: "A module imports another module only through its index.ts (written '../x/index.js').",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '\\.tables\\.ts$' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'tables-import-internals',
      comment: 'A *.tables.ts file imports, of another module, only its *.tables.ts: for foreign-key references (`.references(() => orgs.id)`), nothing else.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/[^/]+\\.tables\\.ts$' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/[^/]+\\.tables\\.ts$'] },
    },
    {
      name: 'tables-cycle',
      comment: 'Table files never import each other in a cycle (drizzle-kit and the foreign keys read them in order).',
      severity: 'error',
      from: { path: '\\.tables\\.ts$' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|drizzle)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
