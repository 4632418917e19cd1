/** Every route of the project-level generation (Stack Auth), under `/projects/…/auth`. */
import type { ApiRoute } from "../core/http";
import { domainRoutes } from "./domains";
import { emailRoutes } from "./email";
import { integrationRoutes } from "./integration";
import { oauthRoutes } from "./oauth";
import { userRoutes } from "./users";

export const projectAuthRoutes: ApiRoute[] = [...integrationRoutes, ...userRoutes, ...oauthRoutes, ...domainRoutes, ...emailRoutes];
