import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isNotFound, redactText } from "../client";
import { email, portInput, senderName, smtpHost, smtpPassword, smtpUsername, type EmailServer as ApiEmailServer, type UpdateEmailServerRequest } from "../schemas";
import type { Context } from "./context";
import { notOwned } from "./converge";
import { checkInputs, lookupArgs, parsedInputs, compact, type Handler, type NaturalKey, type Props } from "./kit";
import { diffFields } from "./diff";
import { childId, generationOf, moveRules, placeOf, splitChildId, type Scope } from "./generation";
import {
  childPlace,
  type EitherChildOutputs,
  childRegistration,
  deleteUnlessHidden,
  despiteIntegration,
  explainMissingIntegration,
  generationRules,
  identityRule,
  parentOf,
  type IntegrationIdentity,
  type NeonAuthIntegration,
  type ProjectIntegration,
} from "./parent";

const KIND = "EmailServer";
const SMTP_FIELDS = ["host", "port", "username", "password", "senderEmail", "senderName"] as const;

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const emailServerInputs = z
  .strictObject({
    ...childPlace,
    type: z.enum(["shared", "standard"], { message: 'must be "shared" or "standard"' }),
    testRecipient: z.string().trim().pipe(email).optional(),
    host: smtpHost.optional(),
    port: portInput.optional(),
    username: smtpUsername.optional(),
    password: smtpPassword.optional(),
    senderEmail: z.string().trim().pipe(email).optional(),
    senderName: senderName.optional(),
    adopt: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    generationRules(v, ctx, ["testRecipient"]);
    if (v.testRecipient !== undefined && v.type === "shared") {
      ctx.addIssue({ code: "custom", path: ["testRecipient"], message: 'is accepted only with type "standard": Neon tests only your own SMTP server' });
    }
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

interface EmailServerArgsBase {
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
  /**
   * Take over an SMTP configuration that is already set (by hand or by another stack) instead of
   * failing: this stack then overwrites it, and sets it back to shared on destroy. Default false.
   */
  adopt?: pulumi.Input<boolean>;
}

/** The email server of a project-level AuthIntegration. */
export interface ProjectEmailServerArgs extends EmailServerArgsBase {
  /** The AuthIntegration whose mail this sends; set after it is created, and again when it is replaced. */
  integration: ProjectIntegration;
  /** Only on a NeonAuth. */
  testRecipient?: never;
}

/** The email provider of a NeonAuth (branch-scoped). */
export interface NeonAuthEmailServerArgs extends EmailServerArgsBase {
  /** The NeonAuth whose mail this sends; set after it is created, and again when it is replaced. */
  integration: NeonAuthIntegration;
  /**
   * Opt-in check (type `standard`): after each create or update that changes the SMTP settings,
   * Neon sends a test mail here (`POST …/email_provider/test`), and the update fails with
   * Neon's error message when the test fails.
   */
  testRecipient?: pulumi.Input<string>;
}

export type EmailServerArgs = ProjectEmailServerArgs | NeonAuthEmailServerArgs;

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

/**
 * Outputs from what the server holds; the password, which reads may omit, stays as set. The
 * branch-scoped API always answers it empty (write-only): it is never compared with the service.
 */
function propsOf(where: Scope, integration: IntegrationIdentity | undefined, server: ApiEmailServer, password: string | undefined, testRecipient?: string): Props {
  if (server.type === "shared") return compact({ ...where, integration, type: "shared" });
  return compact({
    ...where,
    integration,
    type: "standard",
    host: server.host,
    port: server.port,
    username: server.username,
    password: generationOf(where).readsSmtpPassword ? (server.password ?? password) : password,
    senderEmail: server.sender_email,
    senderName: server.sender_name,
    testRecipient,
  });
}

const scope = (inputs: Scope): Scope => compact({ projectId: inputs.projectId, branchId: inputs.branchId });

const calls = (ctx: Context, where: Scope) => generationOf(where).calls(ctx, where).emailServer;

async function apply(ctx: Context, inputs: Inputs): Promise<Props> {
  const where = scope(inputs);
  let server: ApiEmailServer;
  try {
    server = await calls(ctx, where).set(requestOf(inputs));
  } catch (err) {
    throw explainMissingIntegration(KIND, inputs.projectId, err);
  }
  if (inputs.testRecipient !== undefined && inputs.type === "standard") await smtpTest(ctx, inputs);
  return { ...propsOf(where, inputs.integration, server, inputs.password, inputs.testRecipient), ...compact({ adopt: inputs.adopt }) };
}

/** The opt-in check: Neon sends a test mail through the saved SMTP settings. */
async function smtpTest(ctx: Context, inputs: Inputs): Promise<void> {
  const r = await calls(ctx, scope(inputs)).test(inputs.testRecipient!);
  if (r.success !== false) return;
  const said = redactText(r.error_message ?? "no reason given", [inputs.password ?? ""]);
  throw new Error(
    `${KIND}: the SMTP settings were saved, but Neon's test mail to ${inputs.testRecipient} through ${inputs.host}:${inputs.port} failed: ${said}. ` +
      "Fix the settings (or the server) and run `pulumi up` again; the update is retried then.",
  );
}

/** What names the object of this kind; also its id. */
const OBJECT: NaturalKey = { fields: [], what: "the email server of one integration", key: (i) => childId(i as Scope, "email-server") };

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const emailServerHandler: Handler = {
  object: OBJECT,

  async check(_olds, news) {
    return checkInputs(KIND, emailServerInputs, news);
  },

  async diff(_id, olds, news) {
    return diffFields(
      olds,
      news,
      [
        { name: "projectId", replaces: true },
        ...moveRules(olds, news, [{ name: "testRecipient" }]),
        identityRule(olds),
        { name: "type" },
        ...SMTP_FIELDS.map((name) => ({ name })),
        { name: "adopt" },
      ],
      { deleteBeforeReplace: true },
    );
  },

  // PATCH sets the whole configuration, so a lost answer is safely replayed by the client. The one
  // question is ownership: Neon's default (shared) is nobody's; an SMTP server someone set is theirs.
  async create(props, ctx) {
    const inputs = parsedInputs(emailServerInputs, props);
    const where = scope(inputs);
    if (!inputs.adopt) {
      const current = await calls(ctx, where).get().catch((err: unknown) => {
        if (isNotFound(err)) return undefined; // no integration: the write below says so
        throw err;
      });
      if (current?.type === "standard") {
        throw notOwned(`${KIND}: the email server of ${placeOf(where)} (SMTP ${current.host}:${current.port})`, {
          adopt: "set `adopt: true` on this EmailServer to take it over on purpose (its settings are then overwritten, and the other owner's are lost)",
        });
      }
    }
    return { id: OBJECT.key(inputs)!, outs: await apply(ctx, inputs) };
  },

  async read(id, props, ctx) {
    const { key: _, ...where } = splitChildId(KIND, id, "email-server");
    // The project answered just now, so a 404 of the read means the integration went meanwhile.
    const parent = await parentOf(ctx, KIND, { ...props, ...where });
    if (!parent) return {};
    try {
      const server = await calls(ctx, where).get();
      const current = { ...propsOf(where, parent.identity, server as ApiEmailServer, props.password, props.testRecipient), ...compact({ adopt: props.adopt }) };
      return { id, props: current, inputs: current };
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
  },

  async update(_id, olds, news, ctx) {
    const inputs = parsedInputs(emailServerInputs, news);
    // Only the integration's identity changed (state written before it was recorded): no request.
    const settings = ["type", ...SMTP_FIELDS] as const;
    if (settings.every((f) => olds[f] === inputs[f])) return { outs: compact({ ...olds, integration: inputs.integration, testRecipient: inputs.testRecipient, adopt: inputs.adopt }) };
    return { outs: await apply(ctx, inputs) };
  },

  async delete(id, _props, ctx) {
    const { key: _, ...where } = splitChildId(KIND, id, "email-server");
    // No auth on the project or branch: there is no email server left to reset.
    await deleteUnlessHidden(ctx, KIND, where, () => calls(ctx, where).set({ type: "shared" }));
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
  /** Where the opt-in SMTP test mail goes (NeonAuth). */
  declare readonly testRecipient: pulumi.Output<string | undefined>;
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
  /** Whether an SMTP configuration set elsewhere was (or may be) taken over at creation. */
  declare readonly adopt: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: EmailServerArgs, opts?: pulumi.CustomResourceOptions) {
    super(...childRegistration(KIND, name, emailServerInputs, args, opts, { withProvider: false, object: OBJECT }));
  }

  /**
   * Looks up the email server configuration by its id, `<projectId>/email-server` (on a NeonAuth
   * `<projectId>/<branchId>/email-server`), without
   * managing it: the engine reads it on every `up` and `refresh`, and `destroy` only forgets it.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): EmailServer {
    return new EmailServer(name, lookupArgs<EmailServerArgs>(emailServerInputs), { ...opts, id });
  }
}

// The outputs every child shares, declared once (parent.ts).
export interface EmailServer extends EitherChildOutputs {}
