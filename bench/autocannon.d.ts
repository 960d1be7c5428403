// The part of autocannon 9's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each request is sent; the returned object is what goes out. */
      setupRequest?: (request: Request & { headers: Record<string, string> }, context: object) => Request;
    }
    interface Options extends Request {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      requests?: Request[];
    }
    interface Histogram {
      mean: number;
      p50: number;
      p99: number;
      max: number;
    }
    interface Result {
      requests: Histogram & { average: number; total: number };
      latency: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
