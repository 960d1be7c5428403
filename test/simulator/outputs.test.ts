import t from '../helpers/tap.js';
import { simulate, simulatedOutputs } from '../../server/simulator/index.js';
import { customSpec, evaluateSpec, events, passRate, specFor, statusAt } from './fixtures.js';

/** Parses a safetensors file the way a reader does: header length, header, contiguous offsets. */
function parseSafetensors(buf: Buffer) {
  const headerLength = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, any>;
  const dataStart = 8 + headerLength;
  const { __metadata__: metadata, ...tensors } = header;
  return { headerLength, metadata, tensors, dataLength: buf.length - dataStart, dataStart };
}

t.test('a completed train run publishes results and a LoRA adapter', async (t) => {
  const spec = specFor({ seed: 5 });
  const tl = simulate(spec, []);
  const outputs = simulatedOutputs(spec, [], tl);
  t.same(outputs.map((o) => [o.name, o.stageId]), [['results.json', 'main'], ['adapter_config.json', 'main'], ['adapter_model.safetensors', 'main']]);

  const results = JSON.parse(outputs[0].content.toString('utf8'));
  t.same([results.recipe, results.model, results.mode, results.seed], [spec.recipe, spec.model, 'train', 5]);
  t.same(results.configuration.evaluation_tasks, 16);
  const completed = (phase: string) => events(tl).filter((e) => e.phase === phase && e.kind === 'task_completed').map((e) => ({ task_id: e.task_id, attempt: e.attempt, outcome: e.outcome, reward: e.reward ?? null }))
      .sort((a, b) => a.task_id.localeCompare(b.task_id) || a.attempt - b.attempt);
  t.same(results.baseline.tasks, completed('baseline'), 'per-task baseline outcomes, in task order, match the events');
  t.same(results.evaluation.tasks, completed('evaluation'), 'per-task evaluation outcomes match the events');
  t.equal(results.baseline.pass_rate, passRate(tl, 'baseline'));
  t.equal(results.evaluation.pass_rate, passRate(tl, 'evaluation'));
  t.match(results.comparison, {
    baseline_pass_rate: passRate(tl, 'baseline'),
    evaluation_pass_rate: passRate(tl, 'evaluation'),
    change_pp: (passRate(tl, 'evaluation') - passRate(tl, 'baseline')) * 100,
    resolution_pp: 100 / 16,
    comparable: true,
  }, 'the same held-out tasks scored once in each phase: a comparable comparison');
  t.equal(results.training.steps.length, 20);
  t.ok(outputs[0].content.toString('utf8').startsWith('{\n  "schema_version": 1,'), 'pretty JSON');

  const config = JSON.parse(outputs[1].content.toString('utf8'));
  t.same([config.peft_type, config.r, config.lora_alpha, config.target_modules, config.base_model_name_or_path], ['LORA', 16, 32, ['q_proj', 'v_proj'], spec.model]);

  const file = outputs[2].content;
  t.ok(file.length < 64 * 1024, `${file.length} bytes`);
  const st = parseSafetensors(file);
  t.equal(st.dataStart % 8, 0, 'the header is padded to 8 bytes');
  t.equal(st.metadata.format, 'pt');
  t.ok(Object.values(st.metadata).every((v) => typeof v === 'string'), 'metadata values are strings');
  const names = Object.keys(st.tensors);
  t.equal(names.length, 8);
  t.ok(names.every((n) => /^base_model\.model\.layers\.\d+\.self_attn\.(q|v)_proj\.lora_(A|B)\.weight$/.test(n)));
  const spans = Object.values(st.tensors).map((x: any) => x.data_offsets as [number, number]).sort((a, b) => a[0] - b[0]);
  let cursor = 0;
  for (const [name, info] of Object.entries(st.tensors) as Array<[string, any]>) {
    t.equal(info.dtype, 'F32');
    t.equal(info.data_offsets[1] - info.data_offsets[0], info.shape[0] * info.shape[1] * 4, `${name} length matches its shape`);
    t.same(info.shape, name.includes('lora_A') ? [16, 64] : [64, 16], 'rank r on the adapter side');
  }
  for (const [begin, end] of spans) {
    t.equal(begin, cursor, 'tensors are contiguous');
    cursor = end;
  }
  t.equal(cursor, st.dataLength, 'offsets cover the whole data section');
  const first = st.tensors[names[0]];
  const values = new Float32Array(file.buffer.slice(file.byteOffset + st.dataStart + first.data_offsets[0], file.byteOffset + st.dataStart + first.data_offsets[1]));
  t.ok(values.every((v) => Number.isFinite(v)) && values.some((v) => v !== 0), 'finite, nonzero weights');
});

t.test('evaluate mode publishes results only; custom runs publish nothing', async (t) => {
  const spec = evaluateSpec();
  const outputs = simulatedOutputs(spec, []);
  t.same(outputs.map((o) => o.name), ['results.json']);
  const results = JSON.parse(outputs[0].content.toString('utf8'));
  t.equal(results.baseline, undefined);
  t.equal(results.comparison, undefined);
  t.equal(new Set(results.evaluation.tasks.filter((x: { outcome: string }) => x.outcome !== 'error').map((x: { task_id: string }) => x.task_id)).size, 16);
  t.equal(results.evaluation.attempts, results.evaluation.tasks.length);
  t.same(simulatedOutputs(customSpec(), []), []);
});

t.test('outputs only once the run completed', async (t) => {
  const spec = specFor();
  const tl = simulate(spec, []);
  t.same(simulatedOutputs(spec, [{ kind: 'cancel', atMs: tl.endAtMs! - 1 }]), [], 'cancelled just before the end');
  t.same(simulatedOutputs(spec, [{ kind: 'fail', atMs: statusAt(tl, 'running')!, reason: 'x' }]), []);
  t.same(simulatedOutputs(spec, [{ kind: 'freeze', atMs: statusAt(tl, 'running')! }]), [], 'frozen forever');
  const recovered = simulatedOutputs(spec, [{ kind: 'recover', atMs: statusAt(tl, 'running')! + 100_000, replayLast: 3 }]);
  t.same(
    recovered.map((o) => o.content.toString('hex')),
    simulatedOutputs(spec, []).map((o) => o.content.toString('hex')),
    'a recovered run publishes the same bytes',
  );
});
