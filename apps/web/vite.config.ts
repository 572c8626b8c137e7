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
    testTimeout: 20_000,
  },
});
