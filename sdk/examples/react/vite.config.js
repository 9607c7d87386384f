import { resolve } from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// Three pages, as a multi-page app has them: the session follows the tab
// from one to the next (createSession({followPage: true})).
export default defineConfig({
  plugins: [react()],
  build: {
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, "index.html"),
        cart: resolve(import.meta.dirname, "cart.html"),
        done: resolve(import.meta.dirname, "done.html"),
      },
    },
  },
});
