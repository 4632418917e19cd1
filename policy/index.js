// The folder `--policy-pack` points at: Pulumi's Node.js policy runner loads this file.
require("../dist/policy/serve.js");
