// htm bound to preact's h: components are written as tagged templates, with no JSX
// build step (esbuild and tsc see plain TypeScript).
export { html } from 'htm/preact';
