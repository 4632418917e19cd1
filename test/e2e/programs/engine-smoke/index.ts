import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();

const echo: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: `echo-${inputs.message}`, outs: { message: inputs.message, length: inputs.message.length } };
  },
  async diff(_id, olds, news) {
    return { changes: olds.message !== news.message, replaces: olds.message !== news.message ? ["message"] : [] };
  },
  async read(id, props) {
    return { id, props };
  },
};

class Echo extends pulumi.dynamic.Resource {
  declare readonly message: pulumi.Output<string>;
  declare readonly length: pulumi.Output<number>;
  constructor(name: string, message: pulumi.Input<string>) {
    super(echo, name, { message, length: undefined }, {}, "engine-smoke", "Echo");
  }
}

const e = new Echo("hello", config.get("message") ?? "hello");
export const message = e.message;
export const length = e.length;
export const id = e.id;
