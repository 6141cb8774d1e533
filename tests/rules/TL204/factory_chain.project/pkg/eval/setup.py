# torchlint-test: select=TL204
# A module of the package that happens to be named setup.py (FindProjectRoot does not take its folder for
# the project's root: tests/unit/engine_driver_test.cpp).
def setup_model(model):
    return model.cuda().eval()
