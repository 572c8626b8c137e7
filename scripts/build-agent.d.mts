/** Types of build-agent.mjs for the TypeScript that imports it (bench/agent). */
export declare const root: string;
/** apps/agent/dist/cumulo-agent.mjs: the agent as one file that runs on Node alone. */
export declare const agentBundle: string;
/** The Node flags the packaging launchers start the agent with. */
export declare const agentNodeFlags: string[];
export declare function bundleAgent(options?: { outfile?: string }): Promise<void>;
