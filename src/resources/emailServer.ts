import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isNotFound } from "../client";
import { email, portInput, projectId, senderName, smtpHost, smtpPassword, smtpUsername, type EmailServer as ApiEmailServer, type UpdateEmailServerRequest } from "../schemas";
import { api } from "./context";
import { checkInputs, lookupArgs, parsedInputs, compact, diffFields, joinId, MODULE, providerOf, splitId, type Handler, type Props } from "./kit";
import { childInputs, despiteIntegration, explainMissingIntegration, identityRule, integrationIdentity, parentOf, type IntegrationIdentity, type ParentIntegration } from "./parent";

const KIND = "EmailServer";
const SMTP_FIELDS = ["host", "port", "username", "password", "senderEmail", "senderName"] as const;

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const emailServerInputs = z
  .strictObject({
    projectId,
    integration: integrationIdentity,
    type: z.enum(["shared", "standard"], { message: 'must be "shared" or "standard"' }),
    host: smtpHost.optional(),
    port: portInput.optional(),
    username: smtpUsername.optional(),
    password: smtpPassword.optional(),
    senderEmail: z.string().trim().pipe(email).optional(),
    senderName: senderName.optional(),
  })
  .superRefine((v, ctx) => {
    for (const field of SMTP_FIELDS) {
      if (v.type === "standard" && v[field] === undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: 'is required when type is "standard"' });
      }
      if (v.type === "shared" && v[field] !== undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: 'must not be set when type is "shared"' });
      }
    }
  }, despiteIntegration);
type Inputs = z.infer<typeof emailServerInputs>;

export interface EmailServerArgs {
  /** The AuthIntegration whose mail this sends; set after it is created, and again when it is replaced. */
  integration: ParentIntegration;
  /** `shared` (Neon's mail server) or `standard` (your SMTP server; all fields below required). */
  type: pulumi.Input<"shared" | "standard">;
  /** SMTP host name or IP address (required for `standard`). */
  host?: pulumi.Input<string>;
  /** 1 to 65535. */
  port?: pulumi.Input<number>;
  /** SMTP user name (required for `standard`). */
  username?: pulumi.Input<string>;
  /** SMTP password (kept secret in state). */
  password?: pulumi.Input<string>;
  /** Address the mail is sent from (required for `standard`). */
  senderEmail?: pulumi.Input<string>;
  /** Display name the mail is sent from (required for `standard`). */
  senderName?: pulumi.Input<string>;
}

function requestOf(inputs: Inputs): UpdateEmailServerRequest {
  if (inputs.type === "shared") return { type: "shared" };
  return {
    type: "standard",
    host: inputs.host!,
    port: inputs.port!,
    username: inputs.username!,
    password: inputs.password!,
    sender_email: inputs.senderEmail!,
    sender_name: inputs.senderName!,
  };
}

/** Outputs from what the server holds; the password, which reads may omit, stays as set. */
function propsOf(project: string, integration: IntegrationIdentity | undefined, server: ApiEmailServer, password: string | undefined): Props {
  if (server.type === "shared") return compact({ projectId: project, integration, type: "shared" });
  return compact({
    projectId: project,
    integration,
    type: "standard",
    host: server.host,
    port: server.port,
    username: server.username,
    password: server.password ?? password,
    senderEmail: server.sender_email,
    senderName: server.sender_name,
  });
}

async function apply(inputs: Inputs): Promise<Props> {
  try {
    const server = await api().updateEmailServer(inputs.projectId, requestOf(inputs));
    return propsOf(inputs.projectId, inputs.integration, server, inputs.password);
  } catch (err) {
    throw explainMissingIntegration(KIND, inputs.projectId, err);
  }
}

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const emailServerHandler: Handler = {
  async check(_olds, news) {
    return checkInputs(KIND, emailServerInputs, news);
  },

  async diff(_id, olds, news) {
    return diffFields(
      olds,
      news,
      [{ name: "projectId", replaces: true }, identityRule(olds), { name: "type" }, ...SMTP_FIELDS.map((name) => ({ name }))],
      { deleteBeforeReplace: true },
    );
  },

  // PATCH sets the whole configuration, so a lost answer is safely replayed by the client.
  async create(props) {
    const inputs = parsedInputs(emailServerInputs, props);
    return { id: joinId(inputs.projectId, "email-server"), outs: await apply(inputs) };
  },

  async read(id, props) {
    const [project] = splitId(KIND, id, 2, "<projectId>/email-server");
    // The project answered just now, so a 404 of the read means the integration went meanwhile.
    const parent = await parentOf(KIND, { ...props, projectId: project });
    if (!parent) return {};
    try {
      const server = await api().getEmailServer(project);
      const current = propsOf(project, parent.identity, server, props.password);
      return { id, props: current, inputs: current };
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
  },

  async update(_id, olds, news) {
    const inputs = parsedInputs(emailServerInputs, news);
    // Only the integration's identity changed (state written before it was recorded): no request.
    const settings = ["type", ...SMTP_FIELDS] as const;
    if (settings.every((f) => olds[f] === inputs[f])) return { outs: { ...olds, integration: inputs.integration } };
    return { outs: await apply(inputs) };
  },

  async delete(id) {
    const [project] = splitId(KIND, id, 2, "<projectId>/email-server");
    try {
      await api().updateEmailServer(project, { type: "shared" });
    } catch (err) {
      // No project or no auth on it: there is no email server left to reset.
      if (!isNotFound(err)) throw err;
    }
  },
};

/**
 * The email server that sends verification and password-reset mail. `standard` uses your SMTP
 * server; `shared` uses Neon's. Create and update set the configuration; delete sets it back
 * to shared. Id (for `get` and `importFile`):
 * `<projectId>/email-server`.
 *
 * @example
 * ```ts
 * const cfg = new pulumi.Config();
 * new EmailServer("smtp", { integration: auth, type: "standard", host: "smtp.example.com", port: 587,
 *   username: "apikey", password: cfg.requireSecret("smtpPassword"),
 *   senderEmail: "auth@example.com", senderName: "Example" });
 * ```
 */
export class EmailServer extends pulumi.dynamic.Resource {
  /** The Neon project, from the integration. */
  declare readonly projectId: pulumi.Output<string>;
  /** The identity of the integration this configures. */
  declare readonly integration: pulumi.Output<IntegrationIdentity>;
  /** `shared` (Neon's mail server) or `standard` (yours). */
  declare readonly type: pulumi.Output<string>;
  /** SMTP host (for `standard`). */
  declare readonly host: pulumi.Output<string | undefined>;
  /** SMTP port (for `standard`). */
  declare readonly port: pulumi.Output<number | undefined>;
  /** SMTP user name (for `standard`). */
  declare readonly username: pulumi.Output<string | undefined>;
  /** Secret. */
  declare readonly password: pulumi.Output<string | undefined>;
  /** Sender address (for `standard`). */
  declare readonly senderEmail: pulumi.Output<string | undefined>;
  /** Sender display name (for `standard`). */
  declare readonly senderName: pulumi.Output<string | undefined>;

  constructor(name: string, args: EmailServerArgs, opts?: pulumi.CustomResourceOptions) {
    const password = args.password === undefined ? undefined : pulumi.secret(args.password);
    super(
      providerOf(KIND),
      name,
      { ...childInputs(args, false), password },
      { ...opts, additionalSecretOutputs: ["password", ...(opts?.additionalSecretOutputs ?? [])] },
      MODULE,
      KIND,
    );
  }

  /**
   * Looks up the email server configuration by its id, `<projectId>/email-server`, without
   * managing it: the engine reads it on every `up` and `refresh`, and `destroy` only forgets it.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): EmailServer {
    return new EmailServer(name, lookupArgs<EmailServerArgs>(emailServerInputs), { ...opts, id });
  }
}
