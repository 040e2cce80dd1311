/**
 * The web app's build (`npm run build` runs it through scripts/build.mjs): web/ in,
 * dist/web out, which the service serves at /. `npx vite --config web/vite.config.ts`
 * serves it with hot reload on :5173 and passes the API calls to a service on :8080.
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const SERVICE = process.env.WEB_DEV_SERVICE ?? 'http://127.0.0.1:8080'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Every browser that runs ES2022 modules has modulepreload; the polyfill would be dead code.
    modulePreload: { polyfill: false },
    // Files, never data: URLs inlined in the bundle, so the CSP's img-src stays 'self'.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': SERVICE, '/health': SERVICE } },
})
