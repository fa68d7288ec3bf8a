"""Notebook 5's checkers: the worked answer passes, and each listed wrong answer (a typed-in one among them)
fails with its hint, never the answer itself."""

import torch

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb05 as exercises
from utils.exercises.checking import ExerciseError as E

BOUND, STD = 4096**-0.5, (3 * 4096) ** -0.5  # Exercise 5.1's predictions


def drawn(in_features=4096, out_features=256, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(in_features, out_features)


def draw(layer=None, bound=BOUND, std=STD, observed_std=None, observed_max=None):
    """Exercise 5.1's arguments: the predictions, the layer, and its measured std and largest |w|."""
    layer = drawn() if layer is None else layer
    weight = layer.weight.detach()
    return (bound, std, layer, weight.std().item() if observed_std is None else observed_std,
            weight.abs().max().item() if observed_max is None else observed_max)


def renormalised():
    layer = drawn()
    torch.nn.init.normal_(layer.weight.detach(), std=0.02)
    return draw(layer, observed_std=0.02, observed_max=0.1)


def measure_logit_std(d, weight_std, seed):
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    hidden = torch.randn(512, d, generator=g)
    return (hidden @ table.T).std().item()


def hidden_first(d, weight_std, seed):  # another order of the draws is another, equally good, measurement
    g = torch.Generator().manual_seed(seed)
    hidden = torch.randn(512, d, generator=g)
    return torch.tensor((hidden @ (torch.randn(1_000, d, generator=g) * weight_std).T).std().item())


def table_std(d, weight_std, seed):
    return (torch.randn(1_000, d, generator=torch.Generator().manual_seed(seed)) * weight_std).std().item()


def unseeded(d, weight_std, seed):
    return (torch.randn(512, d) @ (torch.randn(1_000, d) * weight_std).T).std().item()


def scaled(seed=0):
    """Exercise 5.3's worked answer: the default weight of nn.Linear(5000, 70), times sqrt(3 * 5000)."""
    torch.manual_seed(seed)
    return torch.nn.Linear(5000, 70, bias=False).weight.detach() * (3 * 5000) ** 0.5


UNIT = 768**-0.5  # the weight std that gives logits of std 1 at d = 768
WORKED = [
    ("check_linear_init_draw", draw),
    ("check_linear_init_draw", lambda: draw(observed_std=drawn().weight.std(),
                                            observed_max=drawn().weight.abs().max())),  # 0-d tensors
    ("check_linear_init_draw", lambda: draw(drawn(4096, 64, seed=1))),  # any out_features: in_features sets the scale
    ("check_logit_std_function", lambda: (measure_logit_std, 1 / measure_logit_std(768, 1.0, seed=0), UNIT)),
    ("check_logit_std_function", lambda: (measure_logit_std, UNIT, UNIT)),  # the formula's std passes too
    ("check_logit_std_function", lambda: (hidden_first, torch.tensor(UNIT), UNIT)),
    ("check_scaled_linear", lambda: (3**0.5, scaled())),
]
WRONG = [
    ("check_linear_init_draw", lambda: draw(drawn(256, 4096)), E, "in_features = 256.*keep in_features = 4096"),
    ("check_linear_init_draw", lambda: draw(observed_std=STD), E,
     r"that is the formula's value.*layer.weight.std\(\)"),
    ("check_linear_init_draw", lambda: draw(observed_max=STD), E,
     r"observed_max = 0.009021, but that is not the largest \|w\|"),
    ("check_linear_init_draw", renormalised, E, "not PyTorch's default initialisation"),
    ("check_linear_init_draw", lambda: draw(bound=11008**-0.5), E,
     r"that is 1/sqrt\(out_features\); nn.Linear's fan_in is in_features"),
    ("check_linear_init_draw", lambda: draw(bound=0.02), E, r"the bound is 1/sqrt\(fan_in\)"),
    ("check_linear_init_draw", lambda: draw(std=BOUND * 1.001), E, "that is the bound itself"),
    ("check_linear_init_draw", lambda: draw(std=0.02), E, r"the std of U\(-b, b\) is b/sqrt\(3\)"),
    ("check_linear_init_draw", lambda: draw(torch.nn.Embedding(4096, 8), observed_std=0.009, observed_max=0.0156),
     TypeError, "layer must be the torch.nn.Linear you drew, got Embedding"),
    ("check_linear_init_draw", lambda: draw(observed_std="0.009"), TypeError, "observed_std must be a number"),
    ("check_linear_init_draw", lambda: draw(observed_max=drawn().weight), TypeError, "observed_max must be a number"),
    ("check_linear_init_draw", lambda: draw(observed_std=-0.009), ValueError, "positive, finite number, got -0.009"),
    ("check_logit_std_function", lambda: (lambda *args: measure_logit_std(*args) ** 2, UNIT, UNIT), E,
     "the variance of the logits"),
    ("check_logit_std_function", lambda: (table_std, UNIT, UNIT), E, "the std of the table"),
    ("check_logit_std_function", lambda: (unseeded, UNIT, UNIT), E, "the same seed gave two different numbers"),
    ("check_logit_std_function", lambda: (measure_logit_std, 0.02, UNIT), E, "measured logits whose std is below 1"),
    ("check_logit_std_function", lambda: (measure_logit_std, 1.0, UNIT), E, "measured logits whose std is above 1"),
    ("check_logit_std_function", lambda: (measure_logit_std, 1 / 768, UNIT), E, r"the variance is d \* std²"),
    ("check_logit_std_function", lambda: (measure_logit_std, UNIT, 0.02), E,
     "your measurement is right, but your prediction"),
    ("check_logit_std_function", lambda: (measure_logit_std, UNIT, 1 / 768), E,
     "your measurement is right, but your prediction"),
    # typed in: right at d = 64 only; a formula, not a measurement; a number, not a function
    ("check_logit_std_function", lambda: (lambda d, weight_std, seed: 8.0, 0.0361, UNIT), E,
     r"measure_logit_std\(256, 0.1, seed=1\) returned 8"),
    ("check_logit_std_function", lambda: (lambda d, weight_std, seed: d**0.5 * weight_std, 0.0361, UNIT), E,
     "computes a formula instead of measuring"),
    ("check_logit_std_function", lambda: (1.0, 0.0361, UNIT), E, "pass your function itself"),
    ("check_logit_std_function", lambda: (lambda d, weight_std, seed: "27.7", 0.0361, UNIT), TypeError,
     "measure_logit_std.* must be a number"),
    ("check_logit_std_function", lambda: (measure_logit_std, None, UNIT), TypeError,
     "weight_std_for_unit_logits must be a number"),
    ("check_logit_std_function", lambda: (measure_logit_std, -0.036, UNIT), ValueError,
     "weight_std_for_unit_logits must be a positive, finite number, got -0.036"),
    ("check_scaled_linear", lambda: (4.7, scaled()), E, "a uniform stays uniform"),  # as if it had become N(0, 1)
    ("check_scaled_linear", lambda: (1.0, scaled()), E, r"the std of U\(-c, c\) is c/sqrt\(3\)"),
    ("check_scaled_linear", lambda: (3**0.5, scaled() / 3**0.5), E, "not 1. Hint: divide the default weight by its"),
    ("check_scaled_linear", lambda: (3**0.5, torch.randn(70, 5000, generator=torch.Generator().manual_seed(0))), E,
     "not nn.Linear's uniform draw"),
    ("check_scaled_linear", lambda: (3**0.5, scaled().T), E, r"expected \(70, 5000\)"),
    ("check_scaled_linear", lambda: (3**0.5, [1.0]), TypeError, "scaled must be a float tensor"),
    ("check_scaled_linear", lambda: ("1.7", scaled()), TypeError, "predicted_max must be a number"),
]
#: what no message may show: the measured std and largest |w| of the drawn layer, the logits' std at d = 256,
#: the weight std for unit logits, and sqrt(3)
ANSWERS = [f"{drawn().weight.std().item():.6f}", f"{drawn().weight.abs().max().item():.6f}",
           f"{measure_logit_std(256, 0.1, 1):.4g}", "0.03608", "1.73"]


test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(exercises, WORKED, WRONG,
                                                                                       ANSWERS)


def test_checkers_leave_the_global_rng_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_logit_std_function(measure_logit_std, UNIT, UNIT)
    assert torch.equal(torch.rand(3), expected)
