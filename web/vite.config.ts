import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web catalog: built into dist/web, which `toolshed serve` serves at `/` (src/server/web-catalog.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The whole app is one chunk, gzip-checked by test/web/bundle-size.test.ts.
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      treeshake: {
        // @rjsf/core's index imports its test registry, which imports the Ajv validator the catalog does
        // not use (web/src/schema-validator.ts); neither has side effects, so unused parts are dropped.
        moduleSideEffects: (id) => !/[\\/]node_modules[\\/](@rjsf[\\/]validator-ajv8|ajv|ajv-formats)[\\/]/.test(id),
      },
    },
  },
});
