// The import graph's rules (issue 40), checked by `pnpm run lint` (`depcruise`), so `npm test`
// fails the moment one is broken. The rooms, from the bottom up (docs/contributing.md):
//   packages/*  libraries: ports, adapters, rules; they import only each other
//   services/*  one service each; another service only through its package entry (src/index.ts)
//   gateway/    the public edge; it calls the services over Connect
//   apps/*      composition roots (apps/standalone: everything in one process)
//   web/        the React app; tools/, load/: scripts around all of it
// Run it by hand: `npx depcruise --config .dependency-cruiser.cjs <dirs…>` (the lint script's dirs).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'An import circle (type-only imports count too): move what both sides need to a module both can import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-library-imports-up',
      comment:
        'A library (packages/*) imports only other libraries: never the gateway, a service, an app or the web app.',
      severity: 'error',
      // Known: fair-play's draw and ring simulations play rounds by the engine's own rule
      // (`resolveRound`), until that rule moves into @underdog/rules.
      from: {
        path: '^packages/',
        pathNot: '^packages/fair-play/test/(simulation|draw\\.test)\\.ts$',
      },
      to: { path: '^(apps|gateway|services|web)/' },
    },
    {
      name: 'no-service-internals',
      comment:
        "A service reaches another service only through that one's package entry (`@underdog/<name>`, src/index.ts).",
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: {
        path: '^services/[^/]+/',
        pathNot: ['^services/$1/', '^services/[^/]+/src/index\\.ts$'],
      },
    },
  ],
  options: {
    // Type-only imports are edges too: `import type` circles are circles.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // Workspace packages resolve through their node_modules links to the real src/ files.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage)/|^proto/gen/|^web/src/gql/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
