"""Will CUDA graphs help my model? The widget's launch model applied to real networks.

    zoo.py              the real models (decoder, mlp, cnn, encoder) with example inputs
    fake_models.py      fake models for the simulator: known kernel counts and times
    spec.py             one (model, batch, shape, dtype), checked; user_model.py: package.module:factory
    runners/            one runner per backend behind the Runner Protocol (contract.py), found by
                        get_runner(): cuda.py the GPU side (torch steps, pools, torch variants:
                        torch_variants.py), sim.py the simulator side (fake models on a SimDevice)
    graph_step.py       our capture of a whole model step (static inputs, one replay)
    profile_step.py     what the profiler saw in one step; profile_worker.py runs it in a child process
                        (profile_serve.py: the child's side)
    timing.py           host dispatch time and interleaved step times
    predict.py          the prediction (formulas in its docstring); verdict.py: launch-bound or not
    machine.py          the constants a prediction uses (live calibration or a sweep recording)
    measure_variants.py eager, our graph, make_graphed_callables, torch.compile (two modes)
    diagnosis.py        profile -> predict -> measure for one setting
    sweep.py            step time against batch size, and the crossover
    planner.py          which shapes to capture (dynamic programming), step_curve.py its cost model,
                        bucket_serving.py measures bucket sets on a device
    record.py           `diagnose --record`: the recording for students without a GPU
    accuracy.py         prediction against measurement over a recording, misses with reasons
    cli.py              `python -m runtime_core diagnose`
"""
