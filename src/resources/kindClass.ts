/**
 * How a kind's class is made from its declaration (the classes themselves are generated from the
 * table of kinds into classes.ts): its constructor registers the resource, and a kind that can be
 * looked up has `get`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { KindDeclaration, Props } from "../provider/kit";
import { declareOnce, notePlainOutputs, registration } from "./registration";

type Options = pulumi.CustomResourceOptions;

/** A kind's class: `new Kind(name, args, opts)`, an object with the kind's outputs `O`. */
export interface KindClass<A, O extends object = object> {
  new (name: string, args: A, opts?: Options): pulumi.dynamic.Resource & O;
}

/** A kind's class with `get`, which reads an existing object by id without managing it. */
export interface LookupClass<A, O extends object = object> extends KindClass<A, O> {
  /**
   * Looks up an existing object by its id (each kind's page in docs/ gives it), without managing it:
   * the engine reads it on every `up` and `refresh`, and `destroy` only forgets it.
   */
  get<T>(this: new (name: string, args: A, opts?: Options) => T, name: string, id: pulumi.Input<pulumi.ID>, opts?: Options): T;
}

/** How a class turns its Args into what it passes to `super` (a child's: children.ts `childRegistration`). */
type Registers = (decl: KindDeclaration, name: string, args: Props, opts: Options | undefined) => ReturnType<typeof registration>;

/** @internal The class of a kind: its constructor registers the resource. */
export function kindClass<A extends object, O extends object = object>(decl: KindDeclaration, registers: Registers = registration): KindClass<A, O> {
  const made: KindClass<A> = class extends pulumi.dynamic.Resource {
    constructor(name: string, args: A, opts?: Options) {
      const registered = registers(decl, name, args, opts);
      super(...registered);
      declareOnce(decl, this.urn, registered[2], opts);
      // What its children take from it is then known plain when it is (registration.ts plainOutputs).
      notePlainOutputs(this, registered[2], registered[3].additionalSecretOutputs);
    }
  };
  // Typed with the outputs `O`: the engine sets each output on the object by its name.
  return made as KindClass<A, O>;
}

/**
 * @internal
 * The class of a kind whose objects can be looked up. A lookup's args name every input with no
 * value: the engine gives a resource only the outputs whose names its args carry.
 */
export function lookupClass<A extends object, O extends object = object>(decl: KindDeclaration, registers: Registers = registration): LookupClass<A, O> {
  const made: LookupClass<A> = class extends kindClass<A>(decl, registers) {
    static get<T>(this: new (name: string, args: A, opts?: Options) => T, name: string, id: pulumi.Input<pulumi.ID>, opts?: Options): T {
      const none = Object.fromEntries(Object.keys((decl.schema as z.ZodObject).shape).map((k) => [k, undefined]));
      return new this(name, none as A, { ...opts, id });
    }
  };
  return made as LookupClass<A, O>;
}
