// swagger-ui-dist ships no types; app.setup.ts needs only where its assets are.
declare module 'swagger-ui-dist/absolute-path.js' {
  function getAbsoluteFSPath(): string;
  export = getAbsoluteFSPath;
}
