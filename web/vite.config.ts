import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `vite` (dev) proxies the API to a standalone game on :8080; `vite build` writes dist/, which
// the gateway serves at / in standalone mode.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      output: {
        manualChunks: {
          react: ['react', 'react-dom', 'react-router-dom'],
          apollo: ['@apollo/client', 'graphql', 'graphql-ws'],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/graphql': { target: 'http://localhost:8080', ws: true },
    },
  },
});
