/**
 * One method per endpoint of the branch-scoped (Better Auth) generation. Each is one line over the
 * client's generic `request`, which takes the endpoint's path, method, schemas and success statuses
 * from its table entry (src/schemas/endpointsBranch.ts).
 */
import type { AnyEndpoint, BodyOf, ParamsOf, ResultOf } from "../schemas/endpoint";
import { branchEndpoints as B } from "../schemas/endpointsBranch";

/** The client's one request path: validates params and body, parses the answer by the entry. */
export type Request = <E extends AnyEndpoint>(e: E, params: ParamsOf<E>, body?: BodyOf<E>) => Promise<ResultOf<E>>;

type P<E> = ParamsOf<E>;
type Q<E> = BodyOf<E>;
type T = typeof B;

export class BranchAuthClient {
  readonly #request: Request;

  constructor(request: Request) {
    this.#request = request;
  }

  getBranchAuth(p: P<T["getBranchAuth"]>) { return this.#request(B.getBranchAuth, p); }
  enableBranchAuth(p: P<T["enableBranchAuth"]>, body: Q<T["enableBranchAuth"]>) { return this.#request(B.enableBranchAuth, p, body); }
  /** Sends `delete_data` only when given: the default keeps the branch's users. */
  disableBranchAuth(p: P<T["disableBranchAuth"]>, body: Q<T["disableBranchAuth"]> = {}) { return this.#request(B.disableBranchAuth, p, body); }
  updateBranchAppName(p: P<T["updateBranchAppName"]>, body: Q<T["updateBranchAppName"]>) { return this.#request(B.updateBranchAppName, p, body); }

  listBranchDomains(p: P<T["listBranchDomains"]>) { return this.#request(B.listBranchDomains, p); }
  addBranchDomain(p: P<T["addBranchDomain"]>, body: Q<T["addBranchDomain"]>) { return this.#request(B.addBranchDomain, p, body); }
  deleteBranchDomains(p: P<T["deleteBranchDomains"]>, body: Q<T["deleteBranchDomains"]>) { return this.#request(B.deleteBranchDomains, p, body); }

  createBranchUser(p: P<T["createBranchUser"]>, body: Q<T["createBranchUser"]>) { return this.#request(B.createBranchUser, p, body); }
  deleteBranchUser(p: P<T["deleteBranchUser"]>) { return this.#request(B.deleteBranchUser, p); }
  setBranchUserRoles(p: P<T["setBranchUserRoles"]>, body: Q<T["setBranchUserRoles"]>) { return this.#request(B.setBranchUserRoles, p, body); }

  listBranchOAuthProviders(p: P<T["listBranchOAuthProviders"]>) { return this.#request(B.listBranchOAuthProviders, p); }
  addBranchOAuthProvider(p: P<T["addBranchOAuthProvider"]>, body: Q<T["addBranchOAuthProvider"]>) { return this.#request(B.addBranchOAuthProvider, p, body); }
  updateBranchOAuthProvider(p: P<T["updateBranchOAuthProvider"]>, body: Q<T["updateBranchOAuthProvider"]>) { return this.#request(B.updateBranchOAuthProvider, p, body); }
  deleteBranchOAuthProvider(p: P<T["deleteBranchOAuthProvider"]>) { return this.#request(B.deleteBranchOAuthProvider, p); }

  getBranchEmailProvider(p: P<T["getBranchEmailProvider"]>) { return this.#request(B.getBranchEmailProvider, p); }
  updateBranchEmailProvider(p: P<T["updateBranchEmailProvider"]>, body: Q<T["updateBranchEmailProvider"]>) { return this.#request(B.updateBranchEmailProvider, p, body); }
  testBranchEmailProvider(p: P<T["testBranchEmailProvider"]>, body: Q<T["testBranchEmailProvider"]>) { return this.#request(B.testBranchEmailProvider, p, body); }
  sendBranchTestEmail(p: P<T["sendBranchTestEmail"]>, body: Q<T["sendBranchTestEmail"]>) { return this.#request(B.sendBranchTestEmail, p, body); }

  getBranchEmailAndPassword(p: P<T["getBranchEmailAndPassword"]>) { return this.#request(B.getBranchEmailAndPassword, p); }
  updateBranchEmailAndPassword(p: P<T["updateBranchEmailAndPassword"]>, body: Q<T["updateBranchEmailAndPassword"]>) { return this.#request(B.updateBranchEmailAndPassword, p, body); }
  getBranchAllowLocalhost(p: P<T["getBranchAllowLocalhost"]>) { return this.#request(B.getBranchAllowLocalhost, p); }
  updateBranchAllowLocalhost(p: P<T["updateBranchAllowLocalhost"]>, body: Q<T["updateBranchAllowLocalhost"]>) { return this.#request(B.updateBranchAllowLocalhost, p, body); }

  /** Every singleton setting in one request (magic link is readable only here). */
  getBranchPlugins(p: P<T["getBranchPlugins"]>) { return this.#request(B.getBranchPlugins, p); }
  updateBranchOrganizationPlugin(p: P<T["updateBranchOrganizationPlugin"]>, body: Q<T["updateBranchOrganizationPlugin"]>) { return this.#request(B.updateBranchOrganizationPlugin, p, body); }
  updateBranchMagicLinkPlugin(p: P<T["updateBranchMagicLinkPlugin"]>, body: Q<T["updateBranchMagicLinkPlugin"]>) { return this.#request(B.updateBranchMagicLinkPlugin, p, body); }
  getBranchPhoneNumberPlugin(p: P<T["getBranchPhoneNumberPlugin"]>) { return this.#request(B.getBranchPhoneNumberPlugin, p); }
  updateBranchPhoneNumberPlugin(p: P<T["updateBranchPhoneNumberPlugin"]>, body: Q<T["updateBranchPhoneNumberPlugin"]>) { return this.#request(B.updateBranchPhoneNumberPlugin, p, body); }

  getBranchWebhooks(p: P<T["getBranchWebhooks"]>) { return this.#request(B.getBranchWebhooks, p); }
  /** A full replace: fields left out are reset by the service, not kept. */
  putBranchWebhooks(p: P<T["putBranchWebhooks"]>, body: Q<T["putBranchWebhooks"]>) { return this.#request(B.putBranchWebhooks, p, body); }
}
