// The SDK entrypoints recorded, each with the folder its traces go to and
// the scenarios it runs.

import * as v1 from "./v1.mjs";
import * as v2 from "./v2.mjs";

export const ENTRYPOINTS = [
  {
    dir: "v1",
    module: "@agentclientprotocol/sdk",
    scenarios: () => v1.withApps(v1.scenarios(false), false),
  },
  {
    dir: "v1-unstable",
    module: "@agentclientprotocol/sdk/unstable",
    scenarios: () => v1.withApps(v1.scenarios(true), true),
  },
  {
    dir: "v2",
    module: "@agentclientprotocol/sdk/experimental/v2",
    scenarios: () => v2.scenarios(false),
  },
  {
    dir: "v2-unstable",
    module: "@agentclientprotocol/sdk/experimental/v2/unstable",
    scenarios: () => v2.scenarios(true),
  },
];
