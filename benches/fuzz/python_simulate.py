"""Hostile arguments for `contour.simulate` (the Python door): 7 built-in models, every method
and integrator, with 1 or 2 arguments replaced by NaN, +-inf, huge, zero or negative numbers,
wrong types, wrong shapes, or a state with a NaN entry. A case fails when the call raises
anything but a `contour.ContourError` or a TypeError/ValueError from argument conversion,
returns a non-finite trajectory, or exceeds 20 s. Not run in CI.

    pip install ./crates/python
    python3 benches/fuzz/python_simulate.py SEED COUNT
"""
import contour, numpy as np, random, math, sys, traceback, signal
random.seed(int(sys.argv[1]))
BAD=[float('nan'),float('inf'),-1.0,0.0,1e308,-1e308,1e-300,2**62,-5,"x",None,[],[1.0],np.zeros(0),np.full(3,np.nan),np.zeros((2,2)),True]
models=[("pendulum",{}),("n_four_bar",{"n":3}),("slider_crank",{}),("four_bar",{}),("keerthi",{}),("arm7",{}),("andrews",{})]
methods=["perturbation","direct","baumgarte","parametrization","exact_stabilization","projector"]
integrators=["abm","dopri5","rkg","bdf"]
class TO(Exception): pass
def h(*a): raise TO()
signal.signal(signal.SIGALRM,h)
bad=0
ERR=[]
for it in range(int(sys.argv[2])):
    name,kw=random.choice(models)
    kw=dict(kw)
    try:
        m=contour.model(name,**kw)
    except contour.ContourError: continue
    except Exception as e:
        print("MODEL",name,type(e).__name__,e); continue
    try:
        q0,qd0=m.initial_state() if name in ("n_four_bar",) else (None,None)
    except Exception: q0,qd0=None,None
    args=dict(model=m,q0=q0,qd0=qd0,t_span=(0.0,0.2),method=random.choice(methods),integrator=random.choice(integrators),atol=1e-6)
    if args['method']=='exact_stabilization': args['integrator']='bdf'
    if q0 is None:
        try:
            st=m.initial_state(); args['q0'],args['qd0']=st
        except Exception:
            continue
    keys=['q0','qd0','t_span','atol','rtol','max_steps','consistency_tol','t_eval','energy_tolerance','kkt_rank_rtol','kkt_pivot_rtol','method','integrator','norm','consistent','passage_policy','kkt','rank_deficiency']
    for _ in range(random.choice([1,1,2])):
        k=random.choice(keys); v=random.choice(BAD)
        if k in ('q0','qd0') and random.random()<0.5:
            a=np.array(args[k],dtype=float).copy(); a[random.randrange(len(a))]=random.choice([float('nan'),float('inf'),1e300]); v=a
        if k=='t_span' and random.random()<0.5: v=(0.0,random.choice([float('nan'),float('inf'),-1.0,0.0,1e300]))
        if k=='t_eval' and random.random()<0.5: v=np.array(random.choice([[0.1,0.05],[float('nan')],[5.0],[-1.0]]))
        args[k]=v
    signal.alarm(20)
    try:
        r=contour.simulate(**args)
        # check: no NaN silently
        if hasattr(r,'q'):
            q=np.asarray(r.q)
            if q.size and not np.all(np.isfinite(q)):
                print("NAN RESULT",name,{k:(v if not hasattr(v,'shape') else v.tolist()) for k,v in args.items() if k!='model'}); bad+=1
    except contour.ContourError as e: ERR.append(type(e).__name__)
    except (TypeError,ValueError,OverflowError) as e:
        # pyo3 argument conversion errors are acceptable if clear
        pass
    except TO:
        print("TIMEOUT",name,{k:(v if not hasattr(v,'shape') else v.tolist()) for k,v in args.items() if k!='model'}); bad+=1
    except BaseException as e:
        print("OTHER",type(e).__name__,str(e)[:200],name,{k:(v if not hasattr(v,'shape') else v.tolist()) for k,v in args.items() if k!='model'}); bad+=1
    finally:
        signal.alarm(0)
import collections; print("done bad",bad,collections.Counter(ERR))
