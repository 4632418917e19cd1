/**
 * The provider object serialized into every resource's `__provider`. Each kind's object is the
 * whole export of its own module (providers/<Kind>.ts): installed from node_modules, it is recorded
 * as a `require()` of that module (about 300 bytes), the path stacks written by 0.1.0 hold. Its
 * methods hold no logic either: at call time they load the implementation by package name in the
 * dynamic-provider process, so that even where the serializer copies them (a linked checkout), one
 * client (one rate limiter, one connection pool) serves every resource of a run.
 */
import type * as pulumi from "@pulumi/pulumi";

export function dynamicProvider(kind: string): pulumi.dynamic.ResourceProvider {
  const impl = () => require("pulumi-neon-auth/dist/resources/runtime").handler(kind);
  return {
    configure: (req) => require("pulumi-neon-auth/dist/resources/runtime").configure(req),
    check: (olds, news) => impl().check(olds, news),
    diff: (id, olds, news) => impl().diff(id, olds, news),
    create: (inputs) => impl().create(inputs),
    read: (id, props) => impl().read(id, props),
    update: (id, olds, news) => impl().update(id, olds, news),
    delete: (id, props) => impl().delete(id, props),
  };
}
