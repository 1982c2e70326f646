import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const fromRoot = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

const apiTarget = 'http://localhost:3000';

export default defineConfig({
  root: 'web',
  plugins: [react()],
  resolve: {
    alias: { '@contracts': fromRoot('./src/contracts') },
  },
  build: {
    outDir: fromRoot('./dist/web'),
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached across deploys.
        // Only the libraries of every page are grouped; the others (charts, sockets) travel with
        // the lazily loaded pages that use them, so the sign-in page does not download them.
        // Mantine is not one group: its components split by the pages that use them, so the
        // sign-in page downloads the few it shows (about 215 kB gzipped in all before sign-in,
        // 258 kB with Mantine as one chunk).
        codeSplitting: {
          groups: [
            // zod with the module that turns its code generation off (the CSP forbids eval): that
            // runs before any schema of the contracts is built, whichever chunk builds it.
            { name: 'zod', test: /node_modules[\\/]zod[\\/]|[\\/]web[\\/]src[\\/]zod-jitless\.ts$/, priority: 4 },
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/, priority: 3 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: true },
      '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
});
