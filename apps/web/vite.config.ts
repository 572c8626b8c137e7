import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

const apiOrigin = 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  server: {
    proxy: {
      '/api': { target: apiOrigin },
      '/rm': { target: apiOrigin.replace(/^http/, 'ws'), ws: true },
    },
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.spec.{ts,tsx}'],
    unstubGlobals: true,
    restoreMocks: true,
    // The slowest screens (a dashboard's widgets, 100-row pages of antd's tables) take 12-16 s under jsdom on the
    // CI machine while the server's integration tests share its two cores: 30 s, as the server project has.
    testTimeout: 30_000,
    // A worker keeps its modules from one spec file to the next (each file still gets a fresh jsdom). Importing
    // antd, React and the app anew took about 3.5 s of each of the 75 files, nearly a fifth of the web
    // project's time. The price: module-level state (a store, a cache) lives on into the next file, so a spec
    // that relies on such state resets it in its beforeEach, as the transfer screens' specs do.
    isolate: false,
  },
});
