export declare const NODE_FLAGS: readonly string[]
export declare const NODE_ENVIRONMENT: Readonly<Record<string, string>>
export declare const NODE_ENVIRONMENT_SHELL: string
