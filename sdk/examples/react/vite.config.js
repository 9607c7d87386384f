import { resolve } from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// Three pages, as a multi-page app has them: the session follows the tab
// from one to the next (createSession({followPage: true})).
export default defineConfig({
  plugins: [react()],
  // Installed from the checkout (file:../..), the SDK's react import would
  // resolve from sdk/, which has no React: use the app's one copy.
  resolve: { dedupe: ["react", "react-dom"] },
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
