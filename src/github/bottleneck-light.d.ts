// bottleneck ships types for its full build only; the light build (no Redis clustering), which
// @octokit/plugin-throttling itself loads, has the same API.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
