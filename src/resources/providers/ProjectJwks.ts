// The provider object of ProjectJwks, alone in its module: when pulumi-neon-auth is installed in
// node_modules, the engine's closure serializer records it in state as a require() of this
// module instead of copying its functions (see dynamic.ts).
import { dynamicProvider } from "./dynamic";

export = dynamicProvider("ProjectJwks");
